import ArgumentParser

/// `passconsole-bench`: the benchmarks `make bench` runs (Benchmarks/run.sh), kept out of the product executable.
@main
struct PassConsoleBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passconsole-bench",
        abstract: "Benchmarks of the SDK, the console's history, its live feed and a reporting fleet (see docs/benchmarks.md).",
        subcommands: [BenchFlowCommand.self, BenchConsoleCommand.self, BenchLiveCommand.self, BenchFleetCommand.self])
}
