@testable import PassEvents
import Foundation
import Testing
@testable import AccessEnabler
@testable import PassHistory

/// Summaries name URLs by their path; the byte scan that cuts plain http(s) URLs must agree with `URLComponents`.
struct EventSummaryTests {
    static let urls = [
        "http://127.0.0.1:8081/adobe-services/1.0/authorizeDevice", "https://sp.auth.adobe.com/api/v1/config/REF30?format=json",
        "http://127.0.0.1:8081/api/v1/authenticate?reg_code=AB12CD&requestor_id=REF30#top", "http://host", "http://host/",
        "http://host?x=1", "http://host#frag", "https://a.b-c.example:443/x/y/z/", "http://host:/x", "http://host:99999/x",
        "http://host:0/x", "http://:80/x", "http:///x", "http://user@host/x", "http://user:pw@host:1/x", "http://[::1]:8081/x",
        "http://host/a%20b", "http://host/a b", "http://host/a|b", "http://host/a{b}", "http://host/it's/(1)*+,;=!$&~_.-",
        "http://host/é", "http://host/a\"b", "http://a:b/x", "http://a:1:2/x", "HTTP://host/x", "adobepass://ios.app",
        "adbe.x://", "u", "", "ftp://host/x", "http://host/x?y=/z#w?v", "http://ho_st/x", "http://host.:8081/x",
    ]

    @Test func shortURLAgreesWithURLComponents() {
        for url in Self.urls {
            let expected: String
            if let components = URLComponents(string: url), components.host != nil {
                expected = "…" + components.path
            } else {
                expected = url
            }
            #expect(EntitlementEvent.shortURL(url) == expected, "\(url)")
        }
    }

    @Test func plainHTTPURLsAreCutWithoutURLComponents() {
        #expect(EntitlementEvent.plainHTTPPath("http://127.0.0.1:8081/api/v1/config/REF30?x=1") == "/api/v1/config/REF30")
        #expect(EntitlementEvent.plainHTTPPath("http://host/a%20b") == nil)
        #expect(EntitlementEvent.plainHTTPPath("adobepass://ios.app") == nil)
    }
}
