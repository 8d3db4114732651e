import Foundation
import PassProtocol

/// One delegate callback with its arguments, as a value: what ``EntitlementDelegate`` receives, what the event
/// stream records, and what `passconsole flow` prints (keys are the seeds' callback and parameter names).
public enum EntitlementCallback: Sendable, Equatable {
    case setRequestorComplete(status: Int)
    case setAuthenticationStatus(status: Int, errorCode: String?)
    case displayProviderDialog(mvpds: [MVPD])
    case navigateToUrl(url: String, useSVC: Bool?)
    case setToken(token: String, resource: String)
    case tokenRequestFailed(resource: String, errorCode: String, errorDescription: String?)
    case selectedProvider(mvpd: MVPD?)
    case sendTrackingData(event: TrackingEvent, data: [String])
    /// `metadata` is the JSON value the backend sent (user metadata: a string, number, array or object; the expiries
    /// and the device ID: a string); `arguments` is the dictionary the app passed to `getMetadata`, as it was.
    case setMetadataStatus(metadata: JSONValue?, encrypted: Bool, key: Int, arguments: [String: String]?)
    case preauthorizedResources(resources: [String])
    case presentTvProviderDialog
    case dismissTvProviderDialog
    case status(statusDictionary: [String: String])

    /// The seed's callback name, e.g. `setAuthenticationStatus`.
    public var name: String {
        switch self {
        case .setRequestorComplete: "setRequestorComplete"
        case .setAuthenticationStatus: "setAuthenticationStatus"
        case .displayProviderDialog: "displayProviderDialog"
        case .navigateToUrl: "navigateToUrl"
        case .setToken: "setToken"
        case .tokenRequestFailed: "tokenRequestFailed"
        case .selectedProvider: "selectedProvider"
        case .sendTrackingData: "sendTrackingData"
        case .setMetadataStatus: "setMetadataStatus"
        case .preauthorizedResources: "preauthorizedResources"
        case .presentTvProviderDialog: "presentTvProviderDialog"
        case .dismissTvProviderDialog: "dismissTvProviderDialog"
        case .status: "status"
        }
    }
}

extension EntitlementCallback: Codable {
    private enum CodingKeys: String, CodingKey {
        case callback, status, errorCode, mvpds, url, useSVC, token, resource, errorDescription, mvpd, event, data
        case metadata, encrypted, key, arguments, resources, statusDictionary
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .callback)
        switch self {
        case .setRequestorComplete(let status): try c.encode(status, forKey: .status)
        case .setAuthenticationStatus(let status, let errorCode):
            try c.encode(status, forKey: .status)
            try c.encode(errorCode, forKey: .errorCode)
        case .displayProviderDialog(let mvpds): try c.encode(mvpds, forKey: .mvpds)
        case .navigateToUrl(let url, let useSVC):
            try c.encode(url, forKey: .url)
            try c.encodeIfPresent(useSVC, forKey: .useSVC)
        case .setToken(let token, let resource):
            try c.encode(token, forKey: .token)
            try c.encode(resource, forKey: .resource)
        case .tokenRequestFailed(let resource, let errorCode, let errorDescription):
            try c.encode(resource, forKey: .resource)
            try c.encode(errorCode, forKey: .errorCode)
            try c.encode(errorDescription, forKey: .errorDescription)
        case .selectedProvider(let mvpd): try c.encode(mvpd, forKey: .mvpd)
        case .sendTrackingData(let event, let data):
            try c.encode(event, forKey: .event)
            try c.encode(data, forKey: .data)
        case .setMetadataStatus(let metadata, let encrypted, let key, let arguments):
            try c.encode(metadata, forKey: .metadata)
            try c.encode(encrypted, forKey: .encrypted)
            try c.encode(key, forKey: .key)
            try c.encode(arguments, forKey: .arguments)
        case .preauthorizedResources(let resources): try c.encode(resources, forKey: .resources)
        case .presentTvProviderDialog, .dismissTvProviderDialog: break
        case .status(let dictionary): try c.encode(dictionary, forKey: .statusDictionary)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .callback)
        switch name {
        case "setRequestorComplete": self = .setRequestorComplete(status: try c.decode(Int.self, forKey: .status))
        case "setAuthenticationStatus":
            self = .setAuthenticationStatus(
                status: try c.decode(Int.self, forKey: .status), errorCode: try c.decodeIfPresent(String.self, forKey: .errorCode))
        case "displayProviderDialog": self = .displayProviderDialog(mvpds: try c.decode([MVPD].self, forKey: .mvpds))
        case "navigateToUrl":
            self = .navigateToUrl(url: try c.decode(String.self, forKey: .url), useSVC: try c.decodeIfPresent(Bool.self, forKey: .useSVC))
        case "setToken": self = .setToken(token: try c.decode(String.self, forKey: .token), resource: try c.decode(String.self, forKey: .resource))
        case "tokenRequestFailed":
            self = .tokenRequestFailed(
                resource: try c.decode(String.self, forKey: .resource), errorCode: try c.decode(String.self, forKey: .errorCode),
                errorDescription: try c.decodeIfPresent(String.self, forKey: .errorDescription))
        case "selectedProvider": self = .selectedProvider(mvpd: try c.decodeIfPresent(MVPD.self, forKey: .mvpd))
        case "sendTrackingData":
            self = .sendTrackingData(event: try c.decode(TrackingEvent.self, forKey: .event), data: try c.decode([String].self, forKey: .data))
        case "setMetadataStatus":
            self = .setMetadataStatus(
                metadata: try c.decodeIfPresent(JSONValue.self, forKey: .metadata), encrypted: try c.decode(Bool.self, forKey: .encrypted),
                key: try c.decode(Int.self, forKey: .key), arguments: try c.decodeIfPresent([String: String].self, forKey: .arguments))
        case "preauthorizedResources": self = .preauthorizedResources(resources: try c.decode([String].self, forKey: .resources))
        case "presentTvProviderDialog": self = .presentTvProviderDialog
        case "dismissTvProviderDialog": self = .dismissTvProviderDialog
        case "status": self = .status(statusDictionary: try c.decode([String: String].self, forKey: .statusDictionary))
        default:
            throw DecodingError.dataCorruptedError(forKey: .callback, in: c, debugDescription: "unknown callback \(name)")
        }
    }
}
