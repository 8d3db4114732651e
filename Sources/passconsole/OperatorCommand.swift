import AccessEnabler
import ArgumentParser
import Foundation
import PassCommandLine
import PassConsole
import PassHistory

/// `passconsole operator add|list|revoke`: the named people who may use a console, kept in its history (which
/// every console of a team shares). Once one exists, the console asks everyone for their personal token.
struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator", abstract: "Add, list and revoke the named operators of a console.",
        subcommands: [Add.self, List.self, Revoke.self])

    struct HistoryOption: ParsableArguments {
        @Option(help: ArgumentHelp(
            "The event history the console runs on (operators are kept there): a SQLite file or a postgres:// URL.",
            discussion: "Default: $PASSCONSOLE_HISTORY_URL when set, else .passconsole/history.sqlite."))
        var history: String?

        func open() async throws -> any EventHistory {
            switch try HistoryLocation(option: history) {
            case .sqlite(let path):
                let url = URL(filePath: path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                do { return try HistoryDatabase(path: path) } catch {
                    throw ValidationError("Cannot open the history \(path): \(HistoryProblem(error, file: path)?.message ?? "\(error)")")
                }
            case .postgres(let location):
                return try await HistoryLocation.openPostgres(location, logger: Bootstrap.logger("operator"))
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator and print their personal token (once: only its hash is kept).")
        @Argument(help: "Their name, as the console and the audit log show it (letters, digits, . _ - @; up to 64).")
        var name: String
        @Option(help: "viewer (reads, personal data redacted) or operator (also clears, imports, undoes, replays, reveals).")
        var role: OperatorRole
        @OptionGroup var options: HistoryOption

        func validate() throws {
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-@"))
            guard (1...64).contains(name.count), name.unicodeScalars.allSatisfy(allowed.contains) else {
                throw ValidationError("The name must be 1 to 64 letters, digits, '.', '_', '-' or '@' (given: '\(name)').")
            }
        }

        func run() async throws {
            let history = try await options.open()
            let token = OperatorToken.generate()
            do {
                try await history.addOperator(OperatorRecord(name: name, role: role, tokenHash: OperatorToken.hash(token), createdAt: Date()))
            } catch let error as OperatorStoreError {
                throw ValidationError(error.description)
            }
            print("""
                Added \(name) (\(role.rawValue): \(role.summary)).
                Personal token (shown only this once; give it to \(name), who pastes it into the console's sign-in form):
                  \(token)
                The console now asks everyone for a personal token. Revoke it with: passconsole operator revoke \(name)
                """)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators (tokens are never shown).")
        @OptionGroup var options: HistoryOption

        func run() async throws {
            let operators = try await options.open().operators()
            guard !operators.isEmpty else {
                print("No operators: the console on loopback needs no sign-in. Add one with: passconsole operator add NAME --role viewer|operator")
                return
            }
            for record in operators {
                let state = record.revokedAt.map { "revoked \(EntitlementEvent.Wire.format($0))" } ?? "active"
                print("\(record.name)\t\(record.role.rawValue)\tadded \(EntitlementEvent.Wire.format(record.createdAt))\t\(state)")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an operator's token (refused from the next request on).")
        @Argument(help: "The operator's name.") var name: String
        @OptionGroup var options: HistoryOption

        func run() async throws {
            guard let record = try await options.open().revokeOperator(name) else {
                throw ValidationError("No operator is named '\(name)' (see passconsole operator list).")
            }
            print("Revoked \(record.name)'s token (\(record.role.rawValue)); every console on this history refuses it now.")
        }
    }
}

extension OperatorRole: ExpressibleByArgument {}
