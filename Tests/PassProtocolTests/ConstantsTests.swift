import Testing

@testable import PassProtocol

struct ConstantsTests {
    @Test func statusCodesAndRedirectURLHaveTheirSDKValues() {
        #expect(PassConstants.ACCESS_ENABLER_STATUS_SUCCESS == 1)
        #expect(PassConstants.ACCESS_ENABLER_STATUS_ERROR == 0)
        #expect(PassConstants.ADOBEPASS_REDIRECT_URL == "adobepass://ios.app")
        #expect(ErrorCode.USER_AUTHENTICATED == "")
    }

    @Test func errorCodesUseTheIOSHeaderSpellingAndMatchAdobesDocsSpelling() {
        #expect(ErrorCode.USER_NOT_AUTHENTICATED_ERROR == "User Not Authenticated Error")
        #expect(ErrorCode.PROVIDER_NOT_SELECTED_ERROR == "Provider Not Selected Error")
        #expect(ErrorCode(matching: "Provider not Selected Error") == .providerNotSelected)
        #expect(ErrorCode(matching: "User not Authorized Error") == .userNotAuthorized)
        #expect(ErrorCode(matching: "Nope") == nil)
        #expect(ErrorCode.allCases.allSatisfy { !$0.explanation.isEmpty })
    }

    @Test func advancedCodesCarryLevelsAndFamilies() {
        #expect(AdvancedStatusCode.N000.level == .info)
        #expect(AdvancedStatusCode.SEC412.level == .warning)
        #expect(AdvancedStatusCode.Z100.level == .error)
        #expect(AdvancedStatusCode.REGCODE.level.rawValue == "Success")
        #expect(AdvancedStatusCode(id: "CFG503") == .CFG5xx)
        #expect(AdvancedStatusCode(id: "APPL") == .AAPL_ERROR)
        #expect(AdvancedStatusCode(id: "500") == .internalError)
        #expect(AdvancedStatusCode(id: "N110") == nil)
        #expect(AdvancedStatusCode(id: "CFG5") == nil)
        #expect(!AdvancedStatusCode.LS011.emittedByIOS)
        #expect(AdvancedStatusCode.VSA203.explanation.contains("Settings"))
        #expect(AdvancedStatusCode.allCases.allSatisfy { !$0.explanation.isEmpty })
    }

    @Test func trackingConstants() {
        #expect(Tracking.TRACKING_AUTHENTICATION == 0)
        #expect(Tracking.TRACKING_AUTHORIZATION == 1)
        #expect(Tracking.TRACKING_MVPD_SELECTION == 2)
        #expect([Tracking.TRACKING_YES, Tracking.TRACKING_NO, Tracking.TRACKING_NONE] == ["YES", "NO", "None"])
    }
}
