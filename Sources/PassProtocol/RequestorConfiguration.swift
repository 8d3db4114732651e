import Foundation

/// The answer to `GET {sp}/config/{requestorId}`: tracking labels and the requestor's MVPDs (spec §5.2.1).
///
/// Rendered as compact XML for the SDK protocol (``xml()``, root `<config>`) and as a JSON twin shaped like
/// REST v2's configuration (``json()``): `{device, clientType, os, requestor: {id, name, mvpds: [...]}}`.
///
/// ```swift
/// let config = RequestorConfiguration(device: "mobile", clientType: "ios", os: "iOS",
///                                     requestorID: "REF30", requestorName: "Reference site", mvpds: [mvpd])
/// let back = try RequestorConfiguration.parse(xml: config.xml())   // == config
/// ```
public struct RequestorConfiguration: Sendable, Equatable, Codable {
    /// Device type for tracking (`device`): `computer`, `tablet`, `mobile`, `gameconsole` or `unknown`.
    public var device: String
    /// Client type for tracking (`clientType`), e.g. `ios`, `tvos`.
    public var clientType: String
    /// Operating system for tracking (`os`), e.g. `iOS`.
    public var os: String
    /// The requestor ID (`requestor/id`).
    public var requestorID: String
    /// The requestor's display name (`requestor/name`).
    public var requestorName: String
    /// The MVPDs integrated with this requestor, in picker order (`requestor/mvpds/mvpd`).
    public var mvpds: [MVPDInfo]

    /// Creates a configuration.
    public init(
        device: String,
        clientType: String,
        os: String,
        requestorID: String,
        requestorName: String,
        mvpds: [MVPDInfo]
    ) {
        self.device = device
        self.clientType = clientType
        self.os = os
        self.requestorID = requestorID
        self.requestorName = requestorName
        self.mvpds = mvpds
    }

    /// The MVPD with `id`, if this requestor lists it.
    public func mvpd(_ id: String) -> MVPDInfo? {
        mvpds.first { $0.id == id }
    }

    /// The JSON twin, keys sorted.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, booleans and integers only: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads the JSON twin.
    ///
    /// - Throws: ``PayloadFormatError`` when the JSON lacks a required key or has the wrong shape.
    public static func decode(json: Data) throws(PayloadFormatError) -> RequestorConfiguration {
        do {
            return try JSONDecoder().decode(RequestorConfiguration.self, from: json)
        } catch {
            throw PayloadFormatError("configuration JSON is invalid (\(error))")
        }
    }

    private enum CodingKeys: String, CodingKey {
        case device, clientType, os, requestor
    }

    private enum RequestorKeys: String, CodingKey {
        case id, name, mvpds
    }

    /// Decodes the nested JSON twin; missing tracking labels read as `""`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let requestor = try container.nestedContainer(keyedBy: RequestorKeys.self, forKey: .requestor)
        self.init(
            device: try container.decodeIfPresent(String.self, forKey: .device) ?? "",
            clientType: try container.decodeIfPresent(String.self, forKey: .clientType) ?? "",
            os: try container.decodeIfPresent(String.self, forKey: .os) ?? "",
            requestorID: try requestor.decode(String.self, forKey: .id),
            requestorName: try requestor.decodeIfPresent(String.self, forKey: .name) ?? "",
            mvpds: try requestor.decodeIfPresent([MVPDInfo].self, forKey: .mvpds) ?? []
        )
    }

    /// Encodes the nested JSON twin.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(device, forKey: .device)
        try container.encode(clientType, forKey: .clientType)
        try container.encode(os, forKey: .os)
        var requestor = container.nestedContainer(keyedBy: RequestorKeys.self, forKey: .requestor)
        try requestor.encode(requestorID, forKey: .id)
        try requestor.encode(requestorName, forKey: .name)
        try requestor.encode(mvpds, forKey: .mvpds)
    }
}
