import Foundation

extension ConsoleReporter {
    /// Who the app is, as the console groups sessions: its bundle ID, its team (the bundle seed ID) and its platform.
    public struct App: Sendable, Equatable {
        /// The platforms the console knows (`ios`, `tvos` on the wire).
        public enum Platform: String, Sendable, CaseIterable {
            case iOS = "ios"
            case tvOS = "tvos"

            /// The platform this build runs on: tvOS on an Apple TV, iOS everywhere else.
            public static var current: Platform {
                #if os(tvOS)
                    .tvOS
                #else
                    .iOS
                #endif
            }
        }

        /// The app's bundle ID, e.g. `com.example.news.ios`.
        public var bundleID: String
        /// The team (bundle seed) ID, e.g. `TEAM1234`: apps of one team share token storage on iOS.
        public var teamID: String
        /// iOS or tvOS.
        public var platform: Platform

        /// An app identity; the bundle ID defaults to the running app's.
        public init(bundleID: String? = nil, teamID: String, platform: Platform = .current) {
            self.bundleID = bundleID ?? Bundle.main.bundleIdentifier ?? "unknown.bundle"
            self.teamID = teamID
            self.platform = platform
        }

        var json: WireJSON {
            .object(["bundleID": .string(bundleID), "teamID": .string(teamID), "platform": .string(platform.rawValue)])
        }
    }
}
