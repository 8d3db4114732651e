// swift-tools-version:6.0
// libFuzzer targets for input parsers of PassConsole (issue #14). Not part of `make test`: built and run by
// `make fuzz` with `-sanitize=fuzzer,address -parse-as-library -enable-testing` (see Fuzz/run.sh).
import PackageDescription

// The parent package's identity is its directory's name (a worktree may be called anything).
let root = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "PassConsole").lowercased()

func target(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name, dependencies: ["FuzzDriver"] + products.map { .product(name: $0, package: root) }, path: "Targets/\(name)")
}

let package = Package(
    name: "PassConsoleFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "..")],
    targets: [
        // libFuzzer's entry, shared by every target.
        .target(name: "FuzzDriver", path: "Targets/FuzzDriver"),
        target("FuzzRequest", ["MicroHTTP"]),
        target("FuzzTokenXML", ["PassProtocol"]),
        target("FuzzStorageImport", ["PassConsole", "AccessEnabler", "PassStorage"]),
        target("FuzzFilterQuery", ["PassConsole", "PassHistory"]),
        target("FuzzRESTAuthorization", ["PassBackend", "MicroHTTP", "PassProtocol"]),
    ]
)
