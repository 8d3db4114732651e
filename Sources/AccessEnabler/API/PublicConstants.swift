// What an app needs from PassProtocol to use the SDK, visible with `import AccessEnabler` alone: the seeds' public
// constants (`PassConstants.METADATA_*`, `OPTION_*`, the status codes) and the type of `setMetadataStatus`'s value.
// They are defined once, in PassProtocol, where the backend reads the same names.
@_exported import enum PassProtocol.JSONValue
@_exported import enum PassProtocol.PassConstants
