// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "PassConsole",
    // iOS and tvOS: only PassConsoleReporter builds there (an app's debug dependency); the rest of the package is Linux
    // and macOS.
    platforms: [.macOS(.v14), .iOS(.v15), .tvOS(.v15)],
    products: [
        .executable(name: "passconsole", targets: ["passconsole"]),
        .executable(name: "passconsole-bench", targets: ["passconsole-bench"]),
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
        .library(name: "PassProtocol", targets: ["PassProtocol"]),
        .library(name: "PassBackend", targets: ["PassBackend"]),
        .library(name: "PassProxy", targets: ["PassProxy"]),
        .library(name: "PassStorage", targets: ["PassStorage"]),
        .library(name: "PassEvents", targets: ["PassEvents"]),
        .library(name: "AccessEnabler", targets: ["AccessEnabler"]),
        .library(name: "PassSimulator", targets: ["PassSimulator"]),
        .library(name: "PassHistory", targets: ["PassHistory"]),
        .library(name: "PassHistoryPostgres", targets: ["PassHistoryPostgres"]),
        .library(name: "PassConsole", targets: ["PassConsole"]),
        .library(name: "PassConsoleReporter", targets: ["PassConsoleReporter"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"4.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // Dates in the wire's fixed formats (HTTP-date, ISO 8601 with milliseconds), shared by the server and the SDK.
        // The project's lock (Synchronization.Mutex; a pthread mutex in ThreadSanitizer builds, see Mutex.swift).
        .target(name: "Locking"),
        .target(name: "WireDates", dependencies: ["Locking"]),
        // A decoding failure in words (what is wrong, and where), for every message about a file or body that could
        // not be read.
        .target(name: "DecodingWords"),
        .target(
            name: "MicroHTTP",
            dependencies: [
                "CMicroHTTPD", "WireDates", "Locking", "DecodingWords",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PassProtocol",
            dependencies: [
                "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "PassBackend",
            dependencies: [
                "MicroHTTP", "PassProtocol", "PassEvents", "PassRecording", "WireDates", "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "PassStorage", dependencies: ["Locking"]),
        // The recording proxy in front of a real entitlement service: forwards to one upstream, records each exchange.
        .target(
            name: "PassProxy",
            dependencies: [
                "MicroHTTP", "PassEvents", "PassRecording", "Locking", "DecodingWords",
                // The upstream client (see UpstreamClient: URLSession on Linux measured 0.03x of direct).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Exchanges as events: what the wire reveals (ExchangeReading) and the recorder the backend and the proxy share.
        .target(
            name: "PassRecording",
            dependencies: [
                "MicroHTTP", "PassEvents", "PassProtocol", "WireDates", "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "DequeModule", package: "swift-collections"),
                // Posting recorded events to a console (ConsolePoster: URLSession kept a dispatch source busy).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The one event model below everyone: the event, its wire codec, its summary and its secret rule. The SDK emits
        // these, the backend and the proxy record them, the history stores them, the console shows them.
        .target(
            name: "PassEvents",
            dependencies: [
                "PassProtocol", "WireDates", "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
                // The reporter's bounded queue: dropping the oldest of a full buffer must not move the rest.
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "AccessEnabler",
            dependencies: [
                "PassEvents", "PassProtocol", "PassStorage", "WireDates", "Locking", "DecodingWords",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What stands in for an Apple device around the SDK: the headless web view, the simulated platform SSO, the
        // device folder's configuration and the SimulatedApp driver. Never linked by an app on a device.
        .target(
            name: "PassSimulator",
            dependencies: [
                "AccessEnabler", "PassProtocol", "PassStorage", "Locking",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PassHistory",
            dependencies: [
                "PassEvents", "PassProtocol", "Locking", .product(name: "GRDB", package: "GRDB.swift"),
                // The SQLite C API, for the ingest loop's binds (see EventInsertStatement).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            exclude: ["README.md"]  // the module's documentation, not a resource
        ),
        // The history in PostgreSQL (a team's shared history): its own target, so the SDK and the SQLite history's
        // users do not link PostgresNIO and SwiftNIO.
        .target(
            name: "PassHistoryPostgres",
            dependencies: [
                "PassHistory", "PassEvents",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // ConnectionPoolError: the pool's circuit breaker, a history that cannot be reached.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PassConsole",
            dependencies: [
                "AccessEnabler", "PassEvents", "PassSimulator", "PassHistory", "MicroHTTP", "PassProtocol", "PassStorage", "Locking",
                "PassProxy", "DecodingWords",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // What both executables read from the command line and the environment: the history's location
        // (`--history`, PASSCONSOLE_HISTORY_URL) and the backend's admin token (PASSBACKEND_ADMIN_TOKEN).
        .target(
            name: "PassCommandLine",
            dependencies: [
                "PassHistory", "PassHistoryPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .executableTarget(
            name: "passconsole",
            dependencies: [
                "MicroHTTP", "PassProtocol", "PassBackend", "PassEvents", "PassProxy", "PassRecording", "PassStorage", "AccessEnabler", "PassSimulator", "PassConsole", "PassHistory",
                "PassCommandLine", "Locking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // The benchmarks `make bench` runs (bench-flow, bench-console, bench-live, bench-fleet): not in the product.
        .executableTarget(
            name: "passconsole-bench",
            dependencies: [
                "AccessEnabler", "PassProtocol", "PassSimulator", "PassStorage", "PassConsole", "PassHistory", "PassHistoryPostgres",
                "PassCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // What an app on the vendor's own SDK links in a debug build to send its calls and callbacks to a console:
        // Foundation only, no module of this package (PassConsoleReporterTests holds it to that).
        .target(name: "PassConsoleReporter"),
        .target(
            // Real faults of a history file (read-only, full, damaged) for the history's and the console's tests.
            name: "HistoryTestSupport",
            dependencies: [
                "PassHistory", "PassHistoryPostgres", "PassTestSupport", "AccessEnabler",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .target(
            name: "PassTestSupport",
            dependencies: ["MicroHTTP", "Locking", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP", "PassTestSupport", "Locking", "WireDates", "DecodingWords"]),
        .testTarget(name: "PassProtocolTests", dependencies: ["PassProtocol", "PassTestSupport"]),
        .testTarget(name: "PassEventsTests", dependencies: ["PassEvents"]),
        .testTarget(
            name: "PassBackendTests",
            dependencies: [
                "PassBackend", "PassProtocol", "PassTestSupport", "MicroHTTP", "Locking",
                // The backend's recording, read back through a real console and history (BackendRecordingTests).
                "PassEvents", "PassConsole", "PassHistory", "PassStorage",
            ]
        ),
        .testTarget(
            name: "PassHistoryTests",
            dependencies: [
                "PassHistory", "PassHistoryPostgres", "PassEvents", "AccessEnabler", "Locking", "PassTestSupport", "HistoryTestSupport",
                "PassCommandLine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "PassConsoleTests",
            dependencies: [
                "PassConsole", "PassHistory", "PassEvents", "AccessEnabler", "PassBackend", "PassStorage", "PassTestSupport", "Locking",
                "HistoryTestSupport", "MicroHTTP", "PassProtocol", "PassSimulator", "PassHistoryPostgres", "PassProxy",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "PassConsoleReporterTests",
            dependencies: [
                "PassConsoleReporter", "AccessEnabler", "PassSimulator", "PassBackend", "PassConsole", "PassHistory",
                "PassProtocol", "PassStorage", "PassTestSupport", "MicroHTTP", "Locking",
            ]
        ),
        .testTarget(
            name: "PassProxyTests",
            dependencies: [
                "PassProxy", "PassBackend", "PassConsole", "PassEvents", "PassHistory", "PassStorage", "MicroHTTP", "PassTestSupport",
                // Recording's own rules (RecordingDropsTests).
                "PassRecording", "Locking",
            ]
        ),
        .testTarget(name: "PassStorageTests", dependencies: ["PassStorage", "PassTestSupport", "Locking"]),
        .testTarget(name: "PassTestSupportTests", dependencies: ["PassTestSupport"]),
        .testTarget(
            name: "PassSimulatorTests", dependencies: ["PassSimulator", "AccessEnabler", "PassStorage", "PassProtocol"]
        ),
        .testTarget(
            name: "AccessEnablerTests",
            dependencies: [
                "AccessEnabler", "PassSimulator", "PassStorage", "PassBackend", "PassProtocol", "PassTestSupport", "Locking",
                "MicroHTTP",
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
    ]
)

// The project's own targets build with warnings as errors (issue #27 item 16): an unused expectation, an unused
// result or a deprecated call cannot come back. PassConsoleReporter is left out: an app adds it as a dependency, and
// SwiftPM refuses a dependency whose targets use unsafe flags (it is built warning-free all the same).
for target in package.targets where target.type != .system && target.name != "PassConsoleReporter" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
}
