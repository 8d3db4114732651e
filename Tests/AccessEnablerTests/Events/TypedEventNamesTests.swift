import Foundation
import Testing
@testable import AccessEnabler

/// API calls and flow states are enums now; what goes on the wire and into stored history must not have changed by a
/// byte, and what was stored before (or comes from another reporter) must still read.
struct TypedEventNamesTests {
    static let session = UUID(uuidString: "6F1E3C52-0D8A-4F5B-9C1E-2A7B3D4E5F60")!

    static func event(_ kind: EntitlementEvent.Kind) -> EntitlementEvent {
        EntitlementEvent(sequence: 7, timestamp: Date(timeIntervalSinceReferenceDate: 785_000_000.5), sessionID: session,
            deviceID: "dev", app: AppIdentity(bundleID: "com.example.news.ios", teamID: "TEAM1234"), requestorID: "REF30",
            mvpdID: nil, kind: kind)
    }

    /// Each typed kind and the JSON the string-typed model wrote for it (copied from history rows of the old build).
    static let samples: [(EntitlementEvent.Kind, String)] = [
        (.apiCall(method: .getAuthorization, arguments: ["resource": "news"]),
            #"{"apiCall":{"arguments":{"resource":"news"},"name":"getAuthorization"}}"#),
        (.apiCall(method: .setRequestor, arguments: ["requestorID": "REF30", "serviceProviders": ""]),
            #"{"apiCall":{"arguments":{"requestorID":"REF30","serviceProviders":""},"name":"setRequestor"}}"#),
        (.apiCall(method: .logout, arguments: [:]), #"{"apiCall":{"arguments":{},"name":"logout"}}"#),
        (.stateChanged(flow: .requestor, from: .unconfigured, to: .configuring(queued: 0)),
            #"{"stateChanged":{"flow":"requestor","from":"unconfigured","to":"configuring"}}"#),
        (.stateChanged(flow: .requestor, from: .configuring(queued: 2), to: .ready),
            #"{"stateChanged":{"flow":"requestor","from":"configuring (2 queued)","to":"ready"}}"#),
        (.stateChanged(flow: .authentication, from: .idle, to: .awaitingLogin(mvpd: "Dish")),
            #"{"stateChanged":{"flow":"authentication","from":"idle","to":"awaitingLogin(Dish)"}}"#),
        (.stateChanged(flow: .authentication, from: .pickingProvider, to: .polling(mvpd: "Dish", code: "ABC1234")),
            #"{"stateChanged":{"flow":"authentication","from":"pickingProvider","to":"polling(Dish, ABC1234)"}}"#),
        (.stateChanged(flow: .authentication, from: .fetchingToken(mvpd: "Cablevision"), to: .loggingOut),
            #"{"stateChanged":{"flow":"authentication","from":"fetchingToken(Cablevision)","to":"loggingOut"}}"#),
    ]

    @Test func theWireFormIsTheOldJSONByteForByte() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for (kind, old) in Self.samples {
            #expect(String(decoding: try encoder.encode(kind), as: UTF8.self) == old)
            let whole = Self.event(kind).fastJSON()
            #expect(whole.contains(#","kind":"# + old + #","requestorID""#), "the fast writer: \(whole)")
            #expect(try JSONDecoder().decode(EntitlementEvent.Kind.self, from: Data(old.utf8)) == kind)
        }
        #expect(Self.event(Self.samples[0].0).fastJSON(dates: .iso8601) == #"{"app":{"bundleID":"com.example.news.ios","#
            + #""platform":"ios","teamID":"TEAM1234"},"deviceID":"dev","kind":{"apiCall":{"arguments":{"resource":"news"},"#
            + #""name":"getAuthorization"}},"requestorID":"REF30","sequence":7,"#
            + #""sessionID":"6F1E3C52-0D8A-4F5B-9C1E-2A7B3D4E5F60","timestamp":"2025-11-16T15:33:20.500Z"}"#)
    }

    /// Rows stored before, or sent by another reporter, with names this build does not know: they decode to `.other`
    /// and are written back unchanged.
    @Test func unknownNamesDecodeAndEncodeBackUnchanged() throws {
        let rows = [
            #"{"apiCall":{"arguments":{},"name":"lb12"}}"#,
            #"{"apiCall":{"arguments":{"user":"alice"},"name":"login"}}"#,
            #"{"stateChanged":{"flow":"authorization","from":"idle","to":"authorizing(news)"}}"#,
            #"{"stateChanged":{"flow":"authentication","from":"registering","to":"waiting(Dish, ABC1234)"}}"#,
            #"{"stateChanged":{"flow":"requestor","from":"configuring (0 queued)","to":"configuring (x queued)"}}"#,
            #"{"stateChanged":{"flow":"authentication","from":"polling(Dish)","to":"idle "}}"#,
            #"{"stateChanged":{"flow":"authentication","from":"awaitingLogin(Dish","to":"awaitingLogin"}}"#,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for row in rows {
            let kind = try JSONDecoder().decode(EntitlementEvent.Kind.self, from: Data(row.utf8))
            #expect(String(decoding: try encoder.encode(kind), as: UTF8.self) == row)
            #expect(Self.event(kind).fastJSON().contains(row))
        }
        let call = try JSONDecoder().decode(EntitlementEvent.Kind.self, from: Data(rows[0].utf8))
        #expect(call == .apiCall(method: .other("lb12"), arguments: [:]))
        let waiting = try JSONDecoder().decode(EntitlementEvent.Kind.self, from: Data(rows[3].utf8))
        #expect(waiting == .stateChanged(flow: .authentication, from: .other("registering"), to: .other("waiting(Dish, ABC1234)")))
        let malformed = try JSONDecoder().decode(EntitlementEvent.Kind.self, from: Data(rows[4].utf8))
        #expect(malformed == .stateChanged(flow: .requestor, from: .other("configuring (0 queued)"), to: .other("configuring (x queued)")))
    }

    @Test func everyKnownNameReadsBackAsItself() {
        for method in APIMethod.known {
            #expect(method.isKnown)
            #expect(APIMethod(rawValue: method.rawValue) == method)
        }
        #expect(Set(APIMethod.known.map(\.rawValue)).count == APIMethod.known.count)
        for flow in FlowKind.known { #expect(FlowKind(rawValue: flow.rawValue) == flow) }
        let states: [FlowState] = [.unconfigured, .configuring(queued: 0), .configuring(queued: 12), .ready, .failed, .idle,
            .pickingProvider, .awaitingLogin(mvpd: "Dish"), .polling(mvpd: "Dish", code: "ABC1234"),
            .fetchingToken(mvpd: "Dish"), .loggingOut]
        #expect(Set(states.compactMap(\.name)) == Set(FlowState.Name.allCases), "a sample of every state")
        for state in states { #expect(FlowState(rawValue: state.rawValue) == state) }
        // The machines' log text is the wire text.
        #expect(RequestorStateMachine().description == FlowState.unconfigured.rawValue)
        #expect(AuthenticationStateMachine().description == FlowState.idle.rawValue)
    }

    /// The string-named constructors (for other reporters, tests, benchmarks) give the typed case.
    @Test func wireNamedConstructorsGiveTheTypedCase() {
        #expect(EntitlementEvent.Kind.apiCall(name: "getMetadata", arguments: [:]) == .apiCall(method: .getMetadata, arguments: [:]))
        #expect(EntitlementEvent.Kind.stateChanged(flow: "authentication", from: "idle", to: "fetchingToken(Dish)")
            == .stateChanged(flow: .authentication, from: .idle, to: .fetchingToken(mvpd: "Dish")))
    }
}
