import Foundation
import PassProtocol

/// tvOS second screen (spec §7): a registration code, polling until someone signs in with it on another device.
extension EntitlementEngine {
    func startSecondScreen(mvpd: String) async {
        fail(AdvancedStatusCode.REG500.rawValue, "The tvOS registration-code flow is not available yet.")
        status(.REG500)
        authenticationFailed(mvpd: mvpd, code: .genericAuthentication, message: "Registration code could not be fetched.")
    }
}
