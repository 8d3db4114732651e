import ArgumentParser

/// `passconsole`: reads flags and `Config/`, connects the libraries, and runs one of the subcommands.
@main
struct PassConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passconsole",
        abstract: "TV Everywhere entitlement SDK, local backend and console.",
        subcommands: [ServeCommand.self, BackendCommand.self, ProxyCommand.self, DemoCommand.self, SignCommand.self, FlowCommand.self, OperatorCommand.self, BackupCommand.self])
}

/// Options every command that loads the configuration shares.
struct ConfigOptions: ParsableArguments {
    @Option(name: .long, help: "The backend configuration (JSON, see Config/README.md).")
    var config = "Config/demo.json"
}
