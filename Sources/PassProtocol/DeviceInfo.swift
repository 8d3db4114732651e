import Foundation

/// Client information: the JSON object sent Base64-encoded as `device_info` / `X-Device-Info` (spec §5.7).
///
/// Every key is optional on the wire; ``validate()`` reports what Adobe requires (`model`, `osName`) and
/// values outside the documented `primaryHardwareType` list. Numbers and booleans are also accepted as
/// strings when decoding, since clients differ.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// Device class, one of ``primaryHardwareTypes``, e.g. `MobilePhone`.
    public var primaryHardwareType: String?
    /// Device model, e.g. `iPhone15,2`. Required.
    public var model: String?
    /// Hardware version.
    public var version: String?
    /// Manufacturer, e.g. `Apple`.
    public var manufacturer: String?
    /// Vendor, e.g. `Apple`.
    public var vendor: String?
    /// Operating system name, e.g. `iOS`, `tvOS`. Required.
    public var osName: String?
    /// Operating system family.
    public var osFamily: String?
    /// Operating system vendor.
    public var osVendor: String?
    /// Operating system version, e.g. `17.4`.
    public var osVersion: String?
    /// Browser name, for web clients.
    public var browserName: String?
    /// Browser vendor, for web clients.
    public var browserVendor: String?
    /// Browser version, for web clients.
    public var browserVersion: String?
    /// The client's User-Agent string.
    public var userAgent: String?
    /// Screen width in pixels.
    public var displayWidth: Int?
    /// Screen height in pixels.
    public var displayHeight: Int?
    /// Screen density in pixels per inch.
    public var displayPpi: Int?
    /// Screen diagonal, e.g. `6.1in`.
    public var diagonalScreenSize: String?
    /// The client's IP address as the client sees it.
    public var connectionIp: String?
    /// The client's port.
    public var connectionPort: Int?
    /// Connection kind, e.g. `WiFi`, `LTE`.
    public var connectionType: String?
    /// Whether the connection is secure.
    public var connectionSecure: Bool?
    /// The application's identifier.
    public var applicationId: String?

    /// The documented values of ``primaryHardwareType``.
    public static let primaryHardwareTypes: Set<String> = [
        "Camera", "DataCollectionTerminal", "Desktop", "EmbeddedNetworkModule", "eReader", "GamesConsole",
        "GeolocationTracker", "Glasses", "MediaPlayer", "MobilePhone", "PaymentTerminal", "PluginModem",
        "SetTopBox", "TV", "Tablet", "WirelessHotspot", "Wristwatch", "Unknown",
    ]

    /// Creates client information with the two required keys; set the others as properties.
    public init(model: String?, osName: String?) {
        self.model = model
        self.osName = osName
    }

    /// Problems that make this object unacceptable to the backend, in plain words; empty when it is fine.
    public func validate() -> [String] {
        var problems: [String] = []
        if model?.isEmpty ?? true { problems.append("model is missing (it is mandatory)") }
        if osName?.isEmpty ?? true { problems.append("osName is missing (it is mandatory)") }
        if let primaryHardwareType, !Self.primaryHardwareTypes.contains(primaryHardwareType) {
            problems.append("primaryHardwareType \"\(primaryHardwareType)\" is not one of the documented values")
        }
        return problems
    }
}

extension DeviceInfo {
    enum CodingKeys: String, CodingKey {
        case primaryHardwareType, model, version, manufacturer, vendor, osName, osFamily, osVendor, osVersion
        case browserName, browserVendor, browserVersion, userAgent, displayWidth, displayHeight, displayPpi
        case diagonalScreenSize, connectionIp, connectionPort, connectionType, connectionSecure, applicationId
    }

    /// Decodes leniently: numbers and booleans may arrive as strings, strings as numbers.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(model: try container.lenientString(.model), osName: try container.lenientString(.osName))
        primaryHardwareType = try container.lenientString(.primaryHardwareType)
        version = try container.lenientString(.version)
        manufacturer = try container.lenientString(.manufacturer)
        vendor = try container.lenientString(.vendor)
        osFamily = try container.lenientString(.osFamily)
        osVendor = try container.lenientString(.osVendor)
        osVersion = try container.lenientString(.osVersion)
        browserName = try container.lenientString(.browserName)
        browserVendor = try container.lenientString(.browserVendor)
        browserVersion = try container.lenientString(.browserVersion)
        userAgent = try container.lenientString(.userAgent)
        displayWidth = try container.lenientInt(.displayWidth)
        displayHeight = try container.lenientInt(.displayHeight)
        displayPpi = try container.lenientInt(.displayPpi)
        diagonalScreenSize = try container.lenientString(.diagonalScreenSize)
        connectionIp = try container.lenientString(.connectionIp)
        connectionPort = try container.lenientInt(.connectionPort)
        connectionType = try container.lenientString(.connectionType)
        connectionSecure = try container.lenientBool(.connectionSecure)
        applicationId = try container.lenientString(.applicationId)
    }
}
