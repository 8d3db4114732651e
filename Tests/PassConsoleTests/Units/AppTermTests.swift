import Foundation
import Testing
@testable import PassConsole

/// Issue #27 item 4: `app:` took only the full bundle ID. People write what they see: the app's name, the end of its
/// bundle ID, in any case; nothing or more than one app answers with the choices.
struct AppTermTests {
    static let known = [
        AppTerm.Known(bundleID: "com.example.news.ios", name: "News (iPhone)"),
        AppTerm.Known(bundleID: "com.example.news.sports", name: "Sports One (iPhone)"),
        AppTerm.Known(bundleID: "com.kidsnet.tv.app", name: "Kids Network (Apple TV)"),
        AppTerm.Known(bundleID: "com.reporter.App", name: nil),
    ]

    @Test(arguments: [
        ("com.example.news.ios", "com.example.news.ios"), ("COM.EXAMPLE.NEWS.IOS", "com.example.news.ios"),
        ("News (iPhone)", "com.example.news.ios"), ("news (iphone)", "com.example.news.ios"),
        ("news.ios", "com.example.news.ios"), ("ios", "com.example.news.ios"), ("sports", "com.example.news.sports"),
        ("kids", "com.kidsnet.tv.app"), ("tv.app", "com.kidsnet.tv.app"), ("reporter.app", "com.reporter.App"),
    ])
    func whatPeopleWriteNamesOneApp(written: String, bundleID: String) throws {
        #expect(try AppTerm(written: written, negated: false).bundleIDs(among: Self.known) == [bundleID])
    }

    @Test func aTermNamingSeveralAppsAsksWhichAndANegatedOneLeavesThemAllOut() throws {
        let error = #expect(throws: FilterQuery.Invalid.self) { try AppTerm(written: "example", negated: false).bundleIDs(among: Self.known) }
        #expect(error?.message == "app:example names 2 apps; write the one you mean, e.g. app:com.example.news.ios.")
        #expect(error?.detail?.contains("Sports One (iPhone) — com.example.news.sports") == true)
        #expect(try AppTerm(written: "example", negated: true).bundleIDs(among: Self.known) == ["com.example.news.ios", "com.example.news.sports"])
        // The start of a name comes before a part of a bundle ID: `news` is the app called News.
        #expect(try AppTerm(written: "news", negated: false).bundleIDs(among: Self.known) == ["com.example.news.ios"])
    }

    @Test func aTermNamingNoAppSaysSoWithTheAppsAndTheNearest() {
        let error = #expect(throws: FilterQuery.Invalid.self) { try AppTerm(written: "Sprots One (iPhone)", negated: false).bundleIDs(among: Self.known) }
        #expect(error?.message == "app:Sprots One (iPhone) names no app the console knows. Did you mean app:com.example.news.sports (Sports One (iPhone))?")
        #expect(error?.detail?.hasPrefix("Apps: com.example.news.ios") == false)
        #expect(error?.detail?.contains("News (iPhone) — com.example.news.ios") == true)
    }

    @Test func aWholeBundleIDOfAnAppThatHasNotReportedYetIsTakenAsWritten() throws {
        #expect(try AppTerm(written: "com.later.App", negated: false).bundleIDs(among: Self.known) == ["com.later.App"])
        #expect(throws: FilterQuery.Invalid.self) { try AppTerm(written: "later.app", negated: false).bundleIDs(among: Self.known) }
    }

    @Test func theFilterTakesTheResolvedBundleIDs() throws {
        var query = try FilterQuery(#"app:"Kids Network (Apple TV)" -app:example mvpd:Dish"#)
        try query.resolveApps(among: Self.known)
        #expect(query.filter.bundleID == "com.kidsnet.tv.app")
        #expect(query.filter.excludedBundleIDs == ["com.example.news.ios", "com.example.news.sports"])
        #expect(query.filter.mvpdID == "Dish")
    }
}
