import Foundation
import MicroHTTP
import PassStorage

/// What a ``Console`` serves and where it keeps things. The executable builds it from flags and `Config/`.
public struct ConsoleConfiguration: Sendable {
    /// The address the console listens on; `127.0.0.1` unless told otherwise.
    public var host: String = "127.0.0.1"
    /// The port (`0`: any free port).
    public var port: UInt16 = 8080
    /// The folder with the page's static files (`Public/`).
    public var publicDirectory: String = "Public"
    /// The device folders whose storage the console shows and manages; the first is the main one (`--device`).
    public var devices: [ConsoleDevice]
    /// The local backend's base URL, shown on the page (the demo apps use it).
    public var backendURL: String?
    /// Required as `Authorization: Bearer …` (or `access_token=`) on every API call when set. Always set when the
    /// console listens beyond loopback.
    public var accessToken: String?
    /// The URL people open the console by when it is not the bound address (a name, a proxy, a forwarded port),
    /// e.g. `http://devbox.lan:8080`: its host is accepted in `Host` and `Origin`, and the printed URL uses it.
    public var publicURL: String?
    /// How much history to keep.
    public var retention = Retention()
    /// How often the maintenance loop runs SQLite's `quick_check` over the history (a damaged file shows a banner).
    public var historyCheckInterval: Duration = .seconds(600)
    /// How often the console re-reads its named operators from the history: an operator added or revoked by
    /// `passconsole operator` counts within this interval.
    public var operatorRefreshInterval: Duration = .seconds(1)
    /// How long `GET /healthz` waits for the backend before calling it failing.
    public var backendCheckTimeout: Duration = .seconds(2)
    /// How long `GET /healthz` waits for the history's read before calling it failing (a PostgreSQL server that takes
    /// no connections leaves the read waiting for a connection).
    public var historyCheckTimeout: Duration = .seconds(5)
    /// How long a read or write of a PostgreSQL history waits for a connection while the server cannot be reached:
    /// past it the request answers 503 (`history_unreachable`, with `Retry-After`) and the demo apps' events wait to
    /// be retried. The history is opened with it (`passconsole serve --history-timeout`); SQLite has no connections to
    /// wait for.
    public var historyLeaseTimeout: Duration = .seconds(5)
    /// The clock tokens are judged by (tests move it; the demo apps' SDKs use it too).
    public var now: @Sendable () -> Date = { Date() }
    /// Largest accepted request body (imports and ingest batches).
    public var maxBodySize = 16 << 20
    /// Set when the console shows a support bundle: read-only, its storage and cards as they were at export.
    public var bundle: OpenedBundle?

    /// How much history to keep: at most `maxEvents`, none older than `maxAge`.
    public struct Retention: Sendable {
        /// The most events kept; the oldest go first.
        public var maxEvents = 1_000_000
        /// The oldest an event may be (30 days by default).
        public var maxAge: Duration = .seconds(30 * 24 * 3600)
        /// The default retention: a million events, 30 days.
        public init() {}
    }

    /// Creates a configuration for the device folder `device` (named `device`) and any `more` devices.
    public init(device: DeviceFolder, named name: String = "device", more: [ConsoleDevice] = []) {
        devices = [ConsoleDevice(name: name, folder: device)] + more
    }

    /// The main device folder.
    public var device: DeviceFolder { devices[0].folder }

    /// True when `host` is a loopback address.
    public var isLoopback: Bool { LocalAddresses.isLoopback(host) }
}

/// A simulated device the console manages, with the short name its storage domains carry (`phone`, `tv`).
public struct ConsoleDevice: Sendable, Hashable {
    /// A plain name without `/` (it prefixes domain IDs: `tv/app:com.example.tv`).
    public var name: String
    /// The device's folder: its profile and token storage files.
    public var folder: DeviceFolder

    /// Creates a device named `name` over `folder`.
    public init(name: String, folder: DeviceFolder) {
        self.name = name
        self.folder = folder
    }
}
