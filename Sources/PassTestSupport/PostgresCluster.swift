import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// A real, throwaway PostgreSQL server for the tests of the history on PostgreSQL: Debian's `postgresql` package
/// (installed by `make deps`), never a mock.
///
/// One cluster per test process, started on first use and shared by every test (``shared()``); each test asks it for
/// a database of its own (``createDatabase()``), so tests running in parallel never see each other's rows.
///
/// - `initdb` makes the cluster in a folder of its own under the temporary directory, named after the test process
///   (`passconsole-pg-<pid>`), with the socket in that folder and the server on a free port of 127.0.0.1 only.
/// - PostgreSQL refuses to run as root: when the tests run as root (CI, `make test` in a container) the folder is
///   handed to the `postgres` user (else `nobody`) and every server program runs as that user through `runuser`.
/// - Connections over TCP need the cluster's password (``password``, random per cluster; SCRAM), those through the
///   socket in the private folder are trusted (how ``createDatabase()`` runs `createdb`).
/// - The server is stopped, and its folder removed, when the test process exits (`atexit`). A cluster left behind by
///   a run that was killed is stopped and removed by the next run's ``shared()``, once its process is gone.
///
/// ```swift
/// let cluster = try await PostgresCluster.shared()
/// let database = try await cluster.createDatabase()
/// // connect to cluster.host:cluster.port as cluster.user / cluster.password, database `database`
/// ```
public final class PostgresCluster: Sendable {
    /// Why the cluster could not be started or a database made.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with the server program's own output.
        public let description: String
    }

    /// The address the server listens on.
    public let host = "127.0.0.1"
    /// The server's port (free when the cluster started).
    public let port: Int
    /// The cluster's superuser (a database role, whatever OS user runs the server).
    public let user = "passtest"
    /// The superuser's password for TCP connections.
    public let password: String
    /// The cluster's folder: the data directory (`data`), the socket and the server's log (`server.log`).
    public let folder: URL
    /// The OS user the server runs as (`nil`: the test process's own user).
    public let osUser: String?
    /// The folder of PostgreSQL's programs (`initdb`, `pg_ctl`, `createdb`).
    public let binDirectory: String
    /// The certificates of a cluster started with TLS on (``startOwn(tls:)``); `nil` without TLS.
    public let tls: TLSFiles?

    /// A TLS cluster's certificates, made by `openssl` in its folder: a throwaway CA, the server's certificate it
    /// signed (for `localhost` only: by its address the server is not the certificate's name), and a second CA that
    /// signed nothing (the wrong CA to trust).
    public struct TLSFiles: Sendable {
        /// The CA that signed the server's certificate (PEM).
        public let caCertificate: URL
        /// A CA that did not (PEM).
        public let otherCACertificate: URL
        /// The server's certificate and key (the key readable by the server only).
        let serverCertificate: URL
        let serverKey: URL
    }

    private let databaseCounter = Mutex(0)

    /// The folder's name prefix; the test process's ID follows it.
    static let folderPrefix = "passconsole-pg-"

    private static let sharedCluster = Mutex<Result<PostgresCluster, Failure>?>(nil)
    /// The clusters to stop at exit (read by the C `atexit` handler, which captures nothing).
    private static let running = Mutex<[PostgresCluster]>([])
    /// How many clusters of their own tests started (``startOwn()``), for their folders' names.
    private static let ownCounter = Mutex(0)

    /// The test process's cluster, started on the first call (a few seconds: `initdb` and the server's start); later
    /// calls return the same one, or the same failure.
    public static func shared() async throws -> PostgresCluster {
        let result = try await BlockingWork.run {
            sharedCluster.withLock { slot -> Result<PostgresCluster, Failure> in
                if let slot { return slot }
                let started = Result { () throws(Failure) in try PostgresCluster.start() }
                slot = started
                return started
            }
        }
        return try result.get()
    }

    /// A cluster of its own for one test (not shared): for a test that stops and starts the server (``stopServer()``,
    /// ``startServer()``), which would break every other test on the shared one. Folder `passconsole-pg-<pid>.<n>`;
    /// stopped and removed at exit like the shared one.
    /// With `tls`, the server takes TLS connections (`ssl=on`) with a certificate signed by a CA of its own (``tls``).
    public static func startOwn(tls: Bool = false) async throws -> PostgresCluster {
        let number = ownCounter.withLock { count in count += 1; return count }
        return try await BlockingWork.run { () throws(Failure) in try PostgresCluster.start(suffix: ".\(number)", tls: tls) }
    }

    /// ``stop()`` off the concurrency pool (it waits for the server to end): for a test done with its own cluster. One
    /// left running (a test that failed before this) is stopped at exit.
    public func remove() async {
        _ = try? await BlockingWork.run { () -> Bool in
            self.stop()
            return true
        }
    }

    /// Stops the server (a fast shutdown: open connections are ended), keeping its data; ``startServer()`` starts it
    /// again on the same port.
    public func stopServer() async throws {
        _ = try await BlockingWork.run { () throws(Failure) -> String in
            try self.runTool("pg_ctl", ["stop", "-w", "-t", "60", "-m", "fast", "-D", self.dataDirectory.path])
        }
    }

    /// Starts the server again after ``stopServer()``, on the same port.
    public func startServer() async throws {
        _ = try await BlockingWork.run { () throws(Failure) -> String in try self.startServerNow() }
    }

    /// `pg_ctl start`, waiting until the server takes connections.
    @discardableResult
    private func startServerNow() throws(Failure) -> String {
        // fsync off: a throwaway cluster needs no durability, and the tests share two cores.
        var options = "-p \(port) -c listen_addresses=127.0.0.1 -c unix_socket_directories='\(folder.path)' "
            + "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        if let tls {
            options += " -c ssl=on -c ssl_cert_file='\(tls.serverCertificate.path)' -c ssl_key_file='\(tls.serverKey.path)'"
        }
        return try runTool("pg_ctl", ["start", "-w", "-t", "60", "-D", dataDirectory.path, "-l", folder.appendingPathComponent("server.log").path,
            "-o", options])
    }

    private init(port: Int, password: String, folder: URL, osUser: String?, binDirectory: String, tls: TLSFiles? = nil) {
        self.port = port
        self.password = password
        self.folder = folder
        self.osUser = osUser
        self.binDirectory = binDirectory
        self.tls = tls
    }

    /// Makes a throwaway CA, the server's certificate it signs (for `localhost` only) and a second CA in
    /// `folder` with `openssl`; the server's key is handed to `osUser` (PostgreSQL wants it 0600, its own).
    static func makeCertificates(in folder: URL, osUser: String?) throws(Failure) -> TLSFiles {
        let file = { (name: String) in folder.appendingPathComponent(name) }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + curve + ["-keyout", file("ca.key").path, "-out", file("ca.crt").path, "-days", "2",
            "-subj", "/CN=PassConsole test CA"], in: folder)
        try openssl(["req", "-x509"] + curve + ["-keyout", file("other-ca.key").path, "-out", file("other-ca.crt").path, "-days", "2",
            "-subj", "/CN=PassConsole other CA"], in: folder)
        try openssl(["req"] + curve + ["-keyout", file("server.key").path, "-out", file("server.csr").path, "-subj", "/CN=localhost"],
            in: folder)
        _ = FileManager.default.createFile(atPath: file("server.ext").path, contents: Data("subjectAltName=DNS:localhost\n".utf8))
        try openssl(["x509", "-req", "-in", file("server.csr").path, "-CA", file("ca.crt").path, "-CAkey", file("ca.key").path,
            "-CAcreateserial", "-out", file("server.crt").path, "-days", "2", "-extfile", file("server.ext").path], in: folder)
        chmod(file("server.key").path, 0o600)
        if let osUser, let entry = getpwnam(osUser) {
            for name in ["server.key", "server.crt"] { chown(file(name).path, entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
        return TLSFiles(caCertificate: file("ca.crt"), otherCACertificate: file("other-ca.crt"), serverCertificate: file("server.crt"),
            serverKey: file("server.key"))
    }

    /// Runs `openssl` with `arguments` in `folder`; throws with its output when it fails.
    static func openssl(_ arguments: [String], in folder: URL) throws(Failure) {
        let output = folder.appendingPathComponent("openssl-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        let code: Int32
        do {
            let child = try ChildProcess("/usr/bin/openssl", arguments, environment: ProcessInfo.processInfo.environment, directory: folder,
                stdout: .file(output), stderr: .file(output))
            code = child.waitUntilExit()
        } catch {
            throw Failure(description: "openssl: \(error)")
        }
        guard code == 0 else {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) exited \(code): \(text)")
        }
    }

    /// The data directory inside ``folder``.
    public var dataDirectory: URL { folder.appendingPathComponent("data") }

    /// The folder holding the server's unix socket (``folder`` itself).
    public var socketDirectory: String { folder.path }

    /// A new, empty database owned by ``user``, for one test; its name is returned.
    public func createDatabase() async throws -> String {
        let name = "test_\(getpid())_\(databaseCounter.withLock { count in count += 1; return count })"
        _ = try await BlockingWork.run { () throws(Failure) in
            try self.runTool("createdb", ["-h", self.socketDirectory, "-p", String(self.port), "-U", self.user, name])
        }
        return name
    }

    /// Runs `sql` through `psql` as the cluster's superuser on `database` (over the private socket); returns what it
    /// printed (unaligned, tuples only). For what a test does to the server behind a client's back.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") async throws -> String {
        try await BlockingWork.run { () throws(Failure) in
            try self.runTool("psql", ["-h", self.socketDirectory, "-p", String(self.port), "-U", self.user, "-d", database,
                "-v", "ON_ERROR_STOP=1", "-Atc", sql])
        }
    }

    /// The server process's ID (from `postmaster.pid`); `nil` when it is not running.
    public var serverPID: pid_t? {
        guard let text = try? String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
            let line = text.split(separator: "\n").first, let pid = pid_t(line), Self.isAlive(pid)
        else { return nil }
        return pid
    }

    /// Stops the server and removes its folder: a fast shutdown (open connections are ended), immediate after 10 s.
    /// Signals only, no child process, so it also works from the `atexit` handler.
    public func stop() {
        if let server = serverPID, Self.isPostgres(server) { Self.shutDown(server) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Sends a PostgreSQL server SIGINT (fast shutdown) and waits for it to end; SIGQUIT (immediate) after 10 s.
    static func shutDown(_ server: pid_t) {
        kill(server, SIGINT)
        var deadline = Date().addingTimeInterval(10)
        while isAlive(server), Date() < deadline { usleep(20_000) }
        guard isAlive(server) else { return }
        kill(server, SIGQUIT)
        deadline = Date().addingTimeInterval(10)
        while isAlive(server), Date() < deadline { usleep(20_000) }
    }

    // MARK: - Starting

    private static func start(suffix: String = "", tls: Bool = false) throws(Failure) -> PostgresCluster {
        let bin = try binDirectory()
        if suffix.isEmpty { removeStaleClusters() }
        let folder = parentFolder.appendingPathComponent("\(folderPrefix)\(getpid())\(suffix)")
        try? FileManager.default.removeItem(at: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot make \(folder.path): \(error)")
        }
        let osUser = getuid() == 0 ? unprivilegedUser() : nil
        if let osUser {
            guard let entry = getpwnam(osUser) else { throw Failure(description: "no user \(osUser)") }
            guard chown(folder.path, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw Failure(description: "cannot hand \(folder.path) to \(osUser): \(String(cString: strerror(errno)))")
            }
        }
        chmod(folder.path, 0o700)
        let password = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 36) }.joined()
        // The password reaches initdb through a file in the private folder, never the command line.
        let passwordFile = folder.appendingPathComponent("password")
        _ = FileManager.default.createFile(atPath: passwordFile.path, contents: Data(password.utf8), attributes: [.posixPermissions: 0o600])
        if let osUser, let entry = getpwnam(osUser) { chown(passwordFile.path, entry.pointee.pw_uid, entry.pointee.pw_gid) }
        let tlsFiles = tls ? try makeCertificates(in: folder, osUser: osUser) : nil
        var lastFailure = Failure(description: "no attempt")
        // A port found free can be taken before the server binds it: try a few.
        for attempt in 0..<3 {
            let cluster = PostgresCluster(port: try freePort(), password: password, folder: folder, osUser: osUser, binDirectory: bin,
                tls: tlsFiles)
            do {
                if attempt == 0 {
                    try cluster.runTool("initdb", ["-D", cluster.dataDirectory.path, "-U", cluster.user, "--pwfile", passwordFile.path,
                        "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
                    try? FileManager.default.removeItem(at: passwordFile)
                }
                try cluster.startServerNow()
                let first = running.withLock { list in
                    list.append(cluster)
                    return list.count == 1
                }
                if first { atexit { for cluster in PostgresCluster.running.withLock({ $0 }) { cluster.stop() } } }
                return cluster
            } catch {
                lastFailure = error
            }
        }
        try? FileManager.default.removeItem(at: folder)
        throw lastFailure
    }

    /// The folder of PostgreSQL's server programs: `pg_config --bindir` when it has `initdb` (Debian's pg_config
    /// belongs to the client package and may name another folder), else the newest `/usr/lib/postgresql/*/bin`.
    static func binDirectory() throws(Failure) -> String {
        let manager = FileManager.default
        let versions = ((try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap { name in Int(name).map { (version: $0, bin: "/usr/lib/postgresql/\(name)/bin") } }
            .sorted { $0.version > $1.version }.map(\.bin)
        for bin in versions where manager.isExecutableFile(atPath: bin + "/initdb") { return bin }
        for candidate in ["/usr/bin", "/usr/local/bin", "/usr/local/pgsql/bin"] where manager.isExecutableFile(atPath: candidate + "/initdb") {
            return candidate
        }
        throw Failure(description: "PostgreSQL's server programs (initdb) are not installed: run `make deps` (Debian's postgresql)")
    }

    /// Where clusters' folders are made: the temporary directory, unless the unprivileged user could not reach a folder
    /// in it (a `TMPDIR` under root's home), then `/tmp`.
    static var parentFolder: URL {
        let temporary = FileManager.default.temporaryDirectory
        guard getuid() == 0 else { return temporary }
        var folder = temporary.resolvingSymlinksInPath()
        while folder.path != "/" {
            var info = stat()
            // Every folder on the way must let others through (o+x).
            if stat(folder.path, &info) != 0 || info.st_mode & S_IXOTH == 0 { return URL(fileURLWithPath: "/tmp") }
            folder.deleteLastPathComponent()
        }
        return temporary
    }

    /// The user to run the server as when the tests run as root: `postgres` when it exists, else `nobody`.
    static func unprivilegedUser() -> String {
        getpwnam("postgres") != nil ? "postgres" : "nobody"
    }

    /// A port of 127.0.0.1 nothing listens on right now.
    static func freePort() throws(Failure) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Stops and removes the clusters of test processes that are gone (killed before their `atexit` ran).
    public static func removeStaleClusters() {
        let temporary = parentFolder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(folderPrefix) {
            // `passconsole-pg-<pid>`, or `passconsole-pg-<pid>.<n>` for a test's own cluster.
            let ownerText = name.dropFirst(folderPrefix.count).prefix { $0 != "." }
            guard let owner = pid_t(ownerText), owner != getpid(), !isAlive(owner) else { continue }
            let folder = temporary.appendingPathComponent(name)
            let data = folder.appendingPathComponent("data")
            if let text = try? String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8),
                let line = text.split(separator: "\n").first, let server = pid_t(line), isPostgres(server)
            {
                shutDown(server)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Whether a process with this ID exists and has not exited (a zombie, not yet reaped by its parent, has).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // `pid (comm) state …`: the state follows the last parenthesis.
        return stat.split(separator: ")").last?.dropFirst().first != "Z"
    }

    /// Whether process `pid` is a PostgreSQL server (not a process that took the ID since).
    static func isPostgres(_ pid: pid_t) -> Bool {
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return name.hasPrefix("postgres")
    }

    /// Runs one of PostgreSQL's programs to its end (as ``osUser`` when set); throws with its output when it fails.
    @discardableResult
    func runTool(_ tool: String, _ arguments: [String]) throws(Failure) -> String {
        let output = folder.appendingPathComponent("\(tool)-\(UUID().uuidString).out")
        // Created by the test process, so the unprivileged user may write it.
        _ = FileManager.default.createFile(atPath: output.path, contents: nil, attributes: [.posixPermissions: 0o666])
        defer { try? FileManager.default.removeItem(at: output) }
        let program = binDirectory + "/" + tool
        let (executable, argv) = osUser.map { ("/usr/sbin/runuser", ["-u", $0, "--", program] + arguments) } ?? (program, arguments)
        let code: Int32
        do {
            var environment = ProcessInfo.processInfo.environment
            environment["LC_ALL"] = "C.UTF-8"
            environment.removeValue(forKey: "PGDATA")
            let child = try ChildProcess(executable, argv, environment: environment, directory: folder, stdout: .file(output),
                stderr: .file(output))
            code = child.waitUntilExit()
        } catch {
            throw Failure(description: "\(tool): \(error)")
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard code == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) exited \(code): \(text)")
        }
        return text
    }
}
