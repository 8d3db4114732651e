import AccessEnabler
import Foundation
import MicroHTTP
import PassProtocol

/// Who a replay signs in as at each MVPD: the recorded user's own demo subscriber there, never a stand-in.
///
/// Per MVPD of the recording, in this order: the subscriber the operator picked; the username and password typed in;
/// the user the recording signed in as (its tracked user ID matched against the backend's sign-ins); the one user the
/// recorded device ever signed in as there. When none of these tells, the replay does not guess: it answers
/// `409 replay_needs_subscriber` with the candidates, and the page shows a picker.
struct ReplaySubscribers {
    /// A sign-in as the backend recorded it (`GET /admin/signins`).
    struct SignIn: Decodable, Sendable, Equatable {
        var guid: String
        var requestorID: String
        var mvpdID: String
        var deviceID: String
        var username: String
    }

    /// Whom a replay may sign in as at one MVPD, when the recording does not tell.
    struct Candidates: Encodable, Sendable, Equatable {
        var mvpd: String
        var usernames: [String]
        /// Why the recorded user is not known, in words.
        var reason: String
    }

    /// The `409` answer: the MVPDs whose subscriber the operator must pick.
    struct Question: Encodable, Sendable, Error {
        var error = "replay_needs_subscriber"
        var message: String
        var detail: String?
        var candidates: [Candidates]
    }

    let plan: ReplayPlan
    /// The recorded session's device ID.
    let deviceID: String
    let subscribers: [Subscriber]
    /// The backend's sign-ins; nil when it could not be asked.
    let signIns: [SignIn]?

    /// Credentials per MVPD (`""` for a login whose MVPD the recording does not name), or the question to ask.
    /// - Throws: `400` for a picked subscriber the MVPD does not have, or an MVPD with no demo subscriber at all.
    func resolve(_ asked: Console.ReplayRequest) throws(HTTPError) -> Result<[String: SessionReplay.Credentials], Question> {
        let given = try asked.given()
        var chosen: [String: SessionReplay.Credentials] = [:]
        var open: [Candidates] = []
        let mvpds = plan.loginMvpds + (plan.logins.contains { $0.mvpd == nil } ? [""] : [])
        for mvpd in mvpds {
            let here = mvpd.isEmpty ? subscribers : subscribers.filter { $0.mvpd == mvpd }
            if let picked = asked.subscribers?[mvpd] {
                guard let subscriber = here.first(where: { $0.username == picked }) else {
                    throw HTTPError(.badRequest, code: "unknown_subscriber",
                        message: "\(mvpd.isEmpty ? "The backend" : mvpd) has no demo subscriber '\(picked)'.",
                        detail: "Subscribers: " + here.map(\.username).joined(separator: ", "))
                }
                chosen[mvpd] = .init(subscriber, source: "picked for \(subscriber.mvpd)")
                continue
            }
            if let given {
                chosen[mvpd] = given
                continue
            }
            guard !here.isEmpty else {
                throw HTTPError(.badRequest, code: "credentials_required",
                    message: "The recorded session signed in with \(mvpd), and the local backend has no demo subscriber there: "
                        + "give the username and password to sign in with.")
            }
            switch recordedUser(at: mvpd, among: here) {
            case .success(let credentials): chosen[mvpd] = credentials
            case .failure(let why): open.append(Candidates(mvpd: mvpd, usernames: here.map(\.username), reason: why.reason))
            }
        }
        guard open.isEmpty else {
            let names = open.map { $0.mvpd.isEmpty ? "an unnamed MVPD" : $0.mvpd }.joined(separator: " and ")
            return .failure(Question(
                message: "Who signed in at \(names) in the recording cannot be told, so the replay will not guess: "
                    + "pick the subscriber to sign in as.",
                detail: open.map { "\($0.mvpd): \($0.reason)" }.joined(separator: "; "), candidates: open))
        }
        return .success(chosen)
    }

    struct Unknown: Error { var reason: String }

    /// The recording's own user at `mvpd`: by its tracked user ID, else the one user its device signed in as there.
    private func recordedUser(at mvpd: String, among here: [Subscriber]) -> Result<SessionReplay.Credentials, Unknown> {
        guard let signIns else { return .failure(Unknown(reason: "the backend's sign-ins could not be read")) }
        let hashes = Set(plan.logins.filter { $0.mvpd == mvpd || mvpd.isEmpty }.compactMap(\.userHash))
        let tracked = Set(signIns.filter { hashes.contains(TrackingEvent.userHash(of: $0.guid)) }.map(\.username))
        if tracked.count == 1, let username = tracked.first, let subscriber = here.first(where: { $0.username == username }) {
            return .success(.init(subscriber, source: "the recorded user at \(subscriber.mvpd)"))
        }
        if tracked.count > 1 {
            return .failure(Unknown(reason: "the recording signed in as \(tracked.sorted().joined(separator: " and ")) there"))
        }
        let onDevice = Set(signIns.filter {
            $0.deviceID == deviceID && $0.requestorID == plan.requestorID && (mvpd.isEmpty || $0.mvpdID == mvpd)
        }.map(\.username))
        if onDevice.count == 1, let username = onDevice.first, let subscriber = here.first(where: { $0.username == username }) {
            return .success(.init(subscriber, source: "the one user the recorded device signed in as at \(subscriber.mvpd)"))
        }
        return .failure(Unknown(reason: onDevice.count > 1
            ? "the recorded device signed in there as \(onDevice.sorted().joined(separator: " and ")), and the recording's own user ID is not known to the backend"
            : "the backend has no record of the recording's sign-in (restarted since, or another backend)"))
    }
}

extension SessionReplay.Credentials {
    init(_ subscriber: Subscriber, source: String) {
        self.init(username: subscriber.username, password: subscriber.password, source: source)
    }
}

extension Console.ReplayRequest {
    /// The username and password typed in, for every MVPD not picked; nil when none were.
    /// - Throws: `400 incomplete_credentials` for one without the other.
    func given() throws(HTTPError) -> SessionReplay.Credentials? {
        switch (username, password) {
        case (let username?, let password?) where !username.isEmpty:
            return SessionReplay.Credentials(username: username, password: password, source: "as given")
        case (nil, nil), ("", _): return nil
        default:
            throw HTTPError(.badRequest, code: "incomplete_credentials", message: "Give both a username and a password, or neither.")
        }
    }
}
