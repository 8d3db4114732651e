import Foundation
import PassBackend
import PassProtocol
import PassTestSupport
import Testing

/// `/reggie/v1/{requestor}/regcode`: create (form body or query), read, delete, and each refusal.
@Suite struct RESTRegcodeTests {
    @Test func createReadDeleteInJSON() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let created = try await app.post("/reggie/v1/REF30/regcode", form: [
                ("deviceId", "tv-1"), ("ttl", "3600"), ("appId", "com.example.tv"), ("deviceType", "appletv")])
            #expect(created.status == 201)
            let json = created.json
            let code = try #require(json["code"] as? String)
            let generated = try #require(json["generated"] as? Int64)
            let expires = try #require(json["expires"] as? Int64)
            #expect(expires - generated == 3_600_000, "generated/expires are numbers of milliseconds")
            let info = try #require(json["info"] as? [String: Any])
            #expect(info["deviceId"] as? String == "tv-1")
            #expect(info["appId"] as? String == "com.example.tv")
            #expect(info["authorizationType"] as? String == "HMAC")

            let read = try await app.get("/reggie/v1/REF30/regcode/\(code)")
            #expect(read.status == 200)
            #expect(read.json["code"] as? String == code)

            let deleted = try await app.delete("/reggie/v1/REF30/regcode/\(code)")
            #expect(deleted.status == 204)
            let gone = try await app.get("/reggie/v1/REF30/regcode/\(code)")
            #expect(gone.status == 404)
            #expect(gone.json["status"] as? Int == 404)
            let deleteAgain = try await app.delete("/reggie/v1/REF30/regcode/\(code)")
            #expect(deleteAgain.status == 404)
        }
    }

    @Test func parametersInTheQueryWithAnEmptyBodyAndXMLAnswer() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let path = "/reggie/v1/REF30/regcode"
            let answer = try await client.send(
                "POST", path + "?deviceId=tv-espn&ttl=1800&mvpd=Dish", headers: ["Authorization": app.authorization("POST", path)])
            #expect(answer.status == 201, "\(answer.text)")
            #expect(answer.text.contains(#"<ns2:regcode xmlns:ns2="model.mvc.reggie.pass.adobe.com">"#))
            #expect(answer.text.contains("<mvpd>Dish</mvpd>"))
        }
    }

    @Test func jsonSuffixAndAcceptHeaderPickTheFormat() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let code = try await app.regcode(device: "tv-fmt")
            let suffixed = try await client.get("/reggie/v1/REF30/regcode/\(code).json",
                headers: ["Authorization": app.authorization("GET", "/reggie/v1/REF30/regcode/\(code)")])
            #expect(suffixed.header("Content-Type")?.contains("json") == true, "\(suffixed.text)")
            #expect(suffixed.json["code"] as? String == code)
            let accepted = try await client.get("/reggie/v1/REF30/regcode/\(code)", headers: [
                "Authorization": app.authorization("GET", "/reggie/v1/REF30/regcode/\(code)"), "Accept": "application/json"])
            #expect(accepted.json["code"] as? String == code)
        }
    }

    @Test func refusals() async throws {
        try await BackendFixture.with { service, client async throws in
            let app = RESTApp(client: client, service: service)
            let cases: [([(String, String)], String)] = [
                ([], "deviceId"),
                ([("deviceId", "d"), ("ttl", "36001")], "maximum"),
                ([("deviceId", "d"), ("ttl", "soon")], "ttl"),
                ([("deviceId", "d"), ("mvpd", "Spectrum-Not")], "Spectrum-Not"),
            ]
            for (form, mention) in cases {
                let answer = try await app.post("/reggie/v1/REF30/regcode", form: form)
                #expect(answer.status == 400, "\(form)")
                #expect((answer.json["details"] as? String ?? "").contains(mention), "\(answer.text)")
            }
            let otherRequestor = try await app.post("/reggie/v1/SPORTS1/regcode", form: [("deviceId", "d")])
            #expect(otherRequestor.status == 403)
            let unknownRequestor = try await app.post("/reggie/v1/NOPE/regcode", form: [("deviceId", "d")])
            #expect(unknownRequestor.status == 400)
            let longest = try await app.post("/reggie/v1/REF30/regcode", form: [("deviceId", "d"), ("ttl", "36000")])
            #expect(longest.status == 201)
        }
    }

    @Test func otherRequestorsCannotSeeACode() async throws {
        try await BackendFixture.with { service, client async throws in
            let ref30 = RESTApp(client: client, service: service)
            let code = try await ref30.regcode(device: "tv-x")
            var sports = RESTApp(client: client, service: service)
            sports.requestor = "SPORTS1"
            sports.publicKey = "sports1-public-key"
            sports.secret = "sports1-secret-change-me"
            let answer = try await sports.get("/reggie/v1/SPORTS1/regcode/\(code)")
            #expect(answer.status == 404)
        }
    }
}
