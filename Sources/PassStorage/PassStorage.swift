/// PassStorage: durable bytes for the SDK — see `StorageFile` and `DeviceFolder`.
