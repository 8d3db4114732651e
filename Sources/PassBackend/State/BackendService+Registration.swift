import Foundation
import PassProtocol

/// Registration codes (spec §5.4.3 #1–3, §7): what a TV shows so a person can sign in on a second screen.
extension BackendService {
    /// Longest lifetime a client may ask for (spec: more → 400).
    static let maximumRegcodeTTL = 36000

    /// Creates a code for a device: 7 characters from `[A-Z0-9]`, unique among live codes.
    func createRegcode(requestorID: String, mvpdID: String?, ttl: Int, info: RegistrationInfo) -> RegistrationCode {
        let now = now()
        return state.withLock { state in
            state.prune(now: now)
            var code = Self.randomCode()
            while state.regcodes[code] != nil { code = Self.randomCode() }
            let registration = RegistrationCode(
                id: UUID().uuidString.lowercased(), code: code, requestor: requestorID, mvpd: mvpdID,
                generated: EpochMilliseconds.from(now), expires: EpochMilliseconds.from(now.addingTimeInterval(TimeInterval(ttl))),
                info: info)
            state.regcodes[code] = RegistrationRecord(code: registration, expires: now.addingTimeInterval(TimeInterval(ttl)))
            return registration
        }
    }

    /// A code's record, live or expired (expired records are kept an hour so clients get 410, not 404).
    func regcode(_ code: String) -> RegistrationRecord? {
        state.withLock { $0.regcodes[code.uppercased()] }
    }

    /// Frees a code; false when it did not exist.
    @discardableResult
    func deleteRegcode(_ code: String) -> Bool {
        state.withLock { $0.regcodes.removeValue(forKey: code.uppercased()) != nil }
    }

    /// The session a code's sign-in produced (on the code's device, scoped to its app), if any.
    func session(for record: RegistrationRecord) -> AuthSession? {
        let info = record.code.info
        let appID = info.appId.flatMap { $0.isEmpty ? nil : $0 }
        return state.withLock { $0.session(record.code.requestor, info.deviceId, appID: appID) }
    }

    /// How many second-screen attempts the backend keeps (oldest dropped first).
    static let keptActivationAttempts = 1000

    /// Remembers a second-screen use of a code.
    func recordActivation(_ attempt: ActivationAttempt) {
        state.withLock { state in
            state.activationAttempts.append(attempt)
            if state.activationAttempts.count > Self.keptActivationAttempts { state.activationAttempts.removeFirst() }
        }
    }

    /// A code's life (nil when the backend never made it or forgot it): its record, its sign-in, its attempts.
    public func regcodeLife(_ code: String) -> RegcodeLife? {
        guard let record = regcode(code) else { return nil }
        let code = record.code.code
        let attempts = state.withLock { $0.activationAttempts.filter { $0.code == code } }
        return RegcodeLife(
            code: code, requestor: record.code.requestor, deviceId: record.code.info.deviceId,
            created: EpochMilliseconds.date(record.code.generated), expires: record.expires,
            activated: session(for: record).map { !$0.revoked } ?? false, attempts: attempts)
    }

    /// The newest second-screen attempts, newest first.
    public func recentActivations(limit: Int = 100) -> [ActivationAttempt] {
        state.withLock { Array($0.activationAttempts.suffix(max(0, limit)).reversed()) }
    }

    private static func randomCode() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<7).map { _ in alphabet.randomElement()! })
    }
}
