import Foundation
import PassProtocol

/// The storage rules that run around the flows: which token counts (validity, SSO copy), and the work of
/// `setRequestor` (importer, sanitizer, per-requestor clean-up, passive authentication), spec §8.
extension EntitlementEngine {
    func ssoContext(_ requestor: ConfiguredRequestor) -> SSOContext {
        Self.ssoContext(requestor, now: now(), deviceID: deviceID)
    }

    /// The rules the SDK judges its storage by for `requestor`: the MVPDs of the configuration it received, those that
    /// sign in per Programmer, those with passive authentication.
    nonisolated static func ssoContext(_ requestor: ConfiguredRequestor, now: Date, deviceID: String) -> SSOContext {
        SSOContext(
            requestorID: requestor.id, allowedMvpds: requestor.allowedMvpds,
            authnPerRequestorMvpds: Set(requestor.mvpds.filter(\.hasAuthNPerRequestor).map(\.ID)),
            passiveAuthnMvpds: Set(requestor.mvpds.filter(\.passiveAuthnEnabled).map(\.ID)), now: now, deviceID: deviceID)
    }

    /// The current requestor's valid authN token; when it has none, a silent SSO copy from another Programmer's
    /// bucket (tokens of MVPDs without authentication per requestor only).
    func validAuthentication() -> ValidAuthentication? {
        guard let requestor else { return nil }
        if let found = Self.valid(in: loadStorage(), requestor: requestor, deviceID: deviceID, now: now()) { return found }
        var copied: SSOCopy?
        let context = ssoContext(requestor)
        updateStorageNow("SSO: copied a token into \(requestor.id)") { storage in copied = storage.copySSOToken(context) }
        guard let copied else { return nil }
        emit(.storageChanged(domain: store.domain, change: "SSO copy of the \(copied.mvpdID) token of \(copied.sourceRequestorID)"), mvpd: copied.mvpdID)
        return Self.valid(in: loadStorage(), requestor: requestor, deviceID: deviceID, now: now())
    }

    static func valid(in storage: TokenStorage, requestor: ConfiguredRequestor, deviceID: String, now: Date) -> ValidAuthentication? {
        guard let bucket = storage.requestors[requestor.id] else { return nil }
        let order = (bucket.currentMvpdID.map { [$0] } ?? []) + bucket.mvpds.keys.sorted().filter { $0 != bucket.currentMvpdID }
        for mvpd in order {
            guard let tokens = bucket.mvpds[mvpd], let serialized = tokens.authnToken else { continue }
            let (validity, token) = TokenValidity.authN(serialized, allowedMvpds: requestor.allowedMvpds, now: now, deviceID: deviceID)
            if validity.isValid, let token {
                return ValidAuthentication(mvpd: mvpd, serialized: serialized, token: token, userMeta: tokens.userMeta)
            }
        }
        return nil
    }

    /// Runs during `setRequestor`, before `setRequestorComplete`: importer, sanitizer, clean-up, passive authentication.
    func prepareStorage() async {
        guard let requestor else { return }
        let context = ssoContext(requestor)
        runImporter(requestor, context: context)
        var removed: [RemovedToken] = []
        updateStorageNow("sanitizer") {
            removed = TokenSanitizer.sanitize(
                &$0, deviceID: deviceID, release: configuration.sdkRelease, formerDeviceIDs: configuration.formerDeviceIDs)
        }
        if !removed.isEmpty {
            let list = removed.map { "\($0.requestorID)/\($0.mvpdID): \($0.explanation)" }.joined(separator: "; ")
            emit(.storageChanged(domain: store.domain, change: "sanitizer removed \(removed.count) token(s): \(list)"))
            status(.SEC412, message: "Stored tokens were bound to another device ID and were removed: \(list)")
        }
        var wiped: [String] = []
        updateStorageNow("per-requestor clean-up") { wiped = $0.removeTokensAfterAuthnPerRequestorSwitch(context) }
        if !wiped.isEmpty {
            emit(.storageChanged(domain: store.domain, change: "removed copies of per-requestor MVPDs: \(wiped.joined(separator: ", "))"))
        }
        if let candidate = loadStorage().passiveAuthenticationCandidate(context), validAuthentication() == nil {
            await passiveAuthentication(mvpd: candidate)
        }
    }

    private func runImporter(_ requestor: ConfiguredRequestor, context: SSOContext) {
        guard !configuration.legacyStorage.isEmpty else { return }
        let marker = configuration.importMarker
        if let marker, let data = try? marker.read(), let done = Int(String(decoding: data, as: UTF8.self)),
            done >= TokenStorage.currentVersion
        {
            return
        }
        let generations: [any StorageGeneration] = configuration.legacyStorage.compactMap { file in
            guard let data = try? file.read() else { return nil }
            return try? JSONDecoder().decode(LegacyTokenStorage.self, from: data)
        }
        var result = ImportResult.nothingToImport
        updateStorageNow("importer") { storage in
            result = TokenImporter.importTokens(
                into: &storage, from: generations, requestorID: requestor.id, allowedMvpds: requestor.allowedMvpds, now: now())
        }
        emit(.storageChanged(domain: store.domain, change: "importer: \(result.explanation)"), mvpd: result.importedToken?.mvpdID)
        if case .currentTokenValid = result { return }
        // With no older storage on the device there is nothing a later run could import again (the marker exists
        // so that a token imported once and then logged out of is not brought back): no durable write for it.
        guard !generations.isEmpty else { return }
        try? marker?.write(Data(String(TokenStorage.currentVersion).utf8))
    }

    /// Passive authentication (spec §8.5): the login URL with `passive=true`, no login page; on success the token is
    /// fetched with `sessionDevice`. Failure is silent (setRequestorComplete follows either way).
    func passiveAuthentication(mvpd: String) async {
        guard let requestor else { return }
        status(.N001, message: "Passive authentication with \(mvpd)")
        advanceAuthentication { $0.loginPageOpened(mvpd: mvpd, passive: true) }
        let sdk = client(for: mvpd)
        let redirect = sdk.sp.absoluteString + SDKEndpoint.completePassiveAuthentication.rawValue
        let url = sdk.loginURL(requestorID: requestor.id, mvpdID: mvpd, deviceID: deviceID, redirectURL: redirect, passive: true)
        defer { advanceAuthentication { $0.passiveLoginEnded() } }
        guard let answer = try? await makeTransport().get(URL(string: url)!), (300..<400).contains(answer.status),
            let location = answer.headers["location"], !location.contains("error=")
        else {
            emit(.error(code: AdvancedStatusCode.N001.rawValue, message: "Passive authentication with \(mvpd) did not sign in."), mvpd: mvpd)
            return
        }
        guard case .token(let serialized, let userMeta)? = try? await sdk.sessionDevice(requestorID: requestor.id, deviceID: deviceID),
            TokenValidity.authN(serialized, allowedMvpds: requestor.allowedMvpds, now: now(), deviceID: deviceID).0.isValid
        else { return }
        updateStorage("passive authentication stored a \(mvpd) token for \(requestor.id)", mvpd: mvpd) {
            $0.storeAuthentication(requestor: requestor.id, mvpd: mvpd, authnToken: serialized, userMeta: userMeta)
        }
    }
}
