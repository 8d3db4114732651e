import Foundation

extension ConsoleReporter {
    /// A TV provider (MVPD) as a callback names it: what the console's picker and session views show.
    ///
    /// Delegates hand over the vendor SDK's own `MVPD` objects; ``init(describing:)`` reads them by their property
    /// names (`ID`, `displayName`, `logoURL`, `enablePlatformServices`, `boardingStatus`, …) so forwarding stays one
    /// line. A property the object does not have takes the value below.
    public struct Provider: Sendable, Equatable {
        /// The MVPD's ID (`mso_id` on the wire), e.g. `Cablevision`.
        public var id: String
        /// The name the picker shows.
        public var displayName: String
        /// Where its logo is ("" when not known).
        public var logoURL: String
        /// Supports Apple single sign-on.
        public var enablePlatformServices: Bool
        /// Tokens bound to the Programmer that obtained them.
        public var hasAuthNPerRequestor: Bool
        /// Passive authentication allowed.
        public var passiveAuthnEnabled: Bool
        /// Its login page must open in an SFSafariViewController.
        public var useSVC: Bool
        /// Apple SSO boarding: `nil`, `PICKER` or `SUPPORTED`.
        public var boardingStatus: String?

        public init(
            id: String, displayName: String, logoURL: String = "", enablePlatformServices: Bool = false,
            hasAuthNPerRequestor: Bool = false, passiveAuthnEnabled: Bool = true, useSVC: Bool = false,
            boardingStatus: String? = nil
        ) {
            self.id = id
            self.displayName = displayName
            self.logoURL = logoURL
            self.enablePlatformServices = enablePlatformServices
            self.hasAuthNPerRequestor = hasAuthNPerRequestor
            self.passiveAuthnEnabled = passiveAuthnEnabled
            self.useSVC = useSVC
            self.boardingStatus = boardingStatus
        }

        /// The provider an SDK's MVPD value or object describes, read by property name: a Swift value through
        /// `Mirror`, an Objective-C object (the vendor's `MVPD`, an `NSObject`) through key-value coding. A
        /// ``Provider`` is taken as it is; a string is taken as the ID.
        public init(describing mvpd: Any) {
            if let provider = mvpd as? Provider {
                self = provider
                return
            }
            if let id = mvpd as? String {
                self.init(id: id, displayName: id)
                return
            }
            let properties = PropertyReader(mvpd)
            let id = properties.string("ID") ?? properties.string("id") ?? properties.string("mvpdID") ?? "unknown"
            self.init(
                id: id, displayName: properties.string("displayName") ?? id, logoURL: properties.string("logoURL") ?? "",
                enablePlatformServices: properties.bool("enablePlatformServices") ?? false,
                hasAuthNPerRequestor: properties.bool("hasAuthNPerRequestor") ?? false,
                passiveAuthnEnabled: properties.bool("passiveAuthnEnabled") ?? true,
                useSVC: properties.bool("useSVC") ?? false, boardingStatus: properties.string("boardingStatus"))
        }

        /// The wire's MVPD object (every member the console requires; `boardingStatus` only when known).
        var json: WireJSON {
            var members: [String: WireJSON] = [
                "ID": .string(id), "displayName": .string(displayName), "logoURL": .string(logoURL),
                "enablePlatformServices": .bool(enablePlatformServices), "hasAuthNPerRequestor": .bool(hasAuthNPerRequestor),
                "passiveAuthnEnabled": .bool(passiveAuthnEnabled), "useSVC": .bool(useSVC),
            ]
            if let boardingStatus { members["boardingStatus"] = .string(boardingStatus) }
            return .object(members)
        }
    }
}

/// Reads an object's properties by name, whatever it is: a Swift value's stored properties (`Mirror`), or on Apple
/// platforms an Objective-C object's through key-value coding.
struct PropertyReader {
    private let mirrored: [String: Any]
    private let object: Any

    init(_ object: Any) {
        self.object = object
        var mirrored: [String: Any] = [:]
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let label = child.label, mirrored[label] == nil { mirrored[label] = child.value }
            }
            mirror = current.superclassMirror
        }
        self.mirrored = mirrored
    }

    func value(_ name: String) -> Any? {
        if let value = mirrored[name] { return Self.unwrapped(value) }
        #if canImport(ObjectiveC)
            if let object = object as? NSObject, object.responds(to: NSSelectorFromString(name)) {
                return object.value(forKey: name)
            }
        #endif
        return nil
    }

    func string(_ name: String) -> String? {
        guard let value = value(name) else { return nil }
        return (value as? String) ?? String(describing: value)
    }

    func bool(_ name: String) -> Bool? {
        switch value(name) {
        case let flag as Bool: flag
        case let number as NSNumber: number.boolValue
        case let text as String: ["1", "true", "yes"].contains(text.lowercased())
        default: nil
        }
    }

    /// `value` without an `Optional` around it; nil for `.none`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
