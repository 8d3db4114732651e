import Testing

@testable import PassProtocol

struct ConstantsTests {
    @Test func statusCodesAndRedirectURLHaveTheirSDKValues() {
        #expect(PassConstants.ACCESS_ENABLER_STATUS_SUCCESS == 1)
        #expect(PassConstants.ACCESS_ENABLER_STATUS_ERROR == 0)
        #expect(PassConstants.ADOBEPASS_REDIRECT_URL == "adobepass://ios.app")
        #expect(ErrorCode.USER_AUTHENTICATED == "")
    }

    @Test("getMetadata keys and op codes, setOptions names and the visitor header have the iOS header's values (spec §1.2, §1.11)")
    func metadataAndOptionConstantsHaveTheirSDKValues() {
        #expect(PassConstants.METADATA_OPCODE_KEY == "opCode")
        #expect([PassConstants.METADATA_AUTHENTICATION, PassConstants.METADATA_AUTHORIZATION, PassConstants.METADATA_DEVICE_ID,
                 PassConstants.METADATA_USER_META, PassConstants.METADATA_KEY_INVALID] == [0, 1, 2, 3, 255])
        #expect(PassConstants.METADATA_RESOURCE_ID_KEY == "resource_id")
        #expect(PassConstants.METADATA_USER_META_KEY == "user_metadata_name")
        #expect(PassConstants.OPTION_VISITOR_ID == "visitorID")
        #expect(PassConstants.OPTION_PROFILE == "applicationProfile")
        #expect(PassConstants.OPTION_HANDLE_SVC == "handleSVC")
        #expect(PassConstants.HEADER_VISITOR_ID == "AP-Visitor-Identifier")
    }

    @Test("a visitor ID is one header value: printable ASCII without spaces, at most 256 bytes")
    func visitorIDRule() {
        #expect(VisitorID.problem("62917358410365271093745582011468093275") == nil)
        #expect(VisitorID.problem(String(repeating: "7", count: VisitorID.maxLength)) == nil)
        for bad in ["", "two words", "line\r\nX-Injected: 1", "caf\u{E9}", String(repeating: "7", count: VisitorID.maxLength + 1)] {
            #expect(VisitorID.problem(bad) != nil, "\(bad)")
        }
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
