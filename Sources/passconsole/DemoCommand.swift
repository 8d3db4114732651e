import ArgumentParser
import Foundation
import PassBackend

/// `passconsole demo`: the demo data newcomers and scripts need (credentials, apps, resources).
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Print the demo Programmers, MVPDs, resources, subscribers and registered app.")

    @OptionGroup var options: ConfigOptions
    @Flag(help: "Print JSON instead of text.") var json = false

    func run() throws {
        let configuration = try BackendConfiguration.load(path: options.config)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            var demo = configuration
            demo.faults = .init()
            print(String(decoding: try encoder.encode(demo), as: UTF8.self))
            return
        }
        print("Programmers (requestor IDs):")
        for programmer in configuration.programmers {
            print("  \(programmer.id)  \(programmer.name)  — MVPDs: \(programmer.mvpds.joined(separator: ", "))")
        }
        print("MVPDs:")
        for mvpd in configuration.mvpds {
            var flags: [String] = []
            if mvpd.authPerRequestor { flags.append("authentication per requestor") }
            if mvpd.appleSSO { flags.append("Apple SSO") }
            if mvpd.requiresSVC { flags.append("needs SFSafariViewController") }
            print("  \(mvpd.id)  \(mvpd.displayName)\(flags.isEmpty ? "" : "  (\(flags.joined(separator: ", ")))")  — sign-in: \(mvpd.loginPage.summary)")
        }
        print("Resources: \(configuration.resources.map(\.id).joined(separator: ", "))")
        print("Subscribers:")
        for subscriber in configuration.subscribers {
            print("  \(subscriber.mvpd): \(subscriber.username) / \(subscriber.password) — entitled to \(subscriber.entitlements.joined(separator: ", "))")
        }
        for app in configuration.apps {
            print("Registered app: \(app.name) — requestor \(app.requestorID), public key \(app.publicKey), secret \(app.secret)")
        }
    }
}
