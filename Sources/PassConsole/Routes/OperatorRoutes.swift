import Foundation
import MicroHTTP
import PassHistory

extension Console {
    /// Who is asking `request` (already let through by the ``AccessGuard``).
    func identity(of request: Request) -> ConsoleIdentity {
        if case .pass(let identity) = accessGuard.identify(request, path: request.path) { return identity }
        return .singleUser
    }

    /// Who an audit line of `request` names.
    func actor(_ request: Request) -> AuditActor {
        AuditActor(remote: request.remoteAddress, operatorName: identity(of: request).operatorName)
    }

    /// What the page shows in its header and whether it must ask for a token.
    struct SignedIn: Encodable {
        var signInRequired: Bool
        var name: String?
        var role: OperatorRole?
        /// What the role may do, by ``ConsoleAction`` (every action when there are no operators).
        var may: [String: Bool]
    }

    /// `GET /api/me`.
    static func addOperatorRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/me") { request in
            let identity = try box.get().identity(of: request)
            let may = Dictionary(uniqueKeysWithValues: ConsoleAction.allCases.map { ($0.rawValue, identity.role?.may($0) ?? true) })
            return .api(SignedIn(signInRequired: identity.signInRequired, name: identity.operatorName, role: identity.role, may: may))
        }
    }
}
