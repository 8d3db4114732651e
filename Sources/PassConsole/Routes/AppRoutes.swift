import Foundation
import MicroHTTP

extension Console {
    static func addAppRoutes(to router: inout Router, _ box: ConsoleBox) {
        router.get("/api/apps") { _ in
            let console = try box.get()
            await console.waitForAppStorageWrites()
            return .api(["apps": console.apps.map(console.view(of:))])
        }
        router.post("/api/apps/{id}/start") { request in
            let app = try box.get().app(request.pathParameters["id"] ?? "")
            do { try app.start() } catch let error as HTTPError { throw error } catch {
                throw HTTPError(.internalServerError, code: "app_start_failed", message: "\(app.spec.name) could not start.",
                    detail: "\(error)")
            }
            return .api(try box.get().view(of: app))
        }
        router.post("/api/apps/{id}/stop") { request in
            let app = try box.get().app(request.pathParameters["id"] ?? "")
            app.stop()
            return .api(try box.get().view(of: app))
        }
        router.post("/api/apps/{id}/call") { request in
            let app = try box.get().app(request.pathParameters["id"] ?? "")
            struct Body: Decodable {
                var method: String
                var arguments: [String: String?]?
            }
            let body = try request.decodeAPI(Body.self)
            var arguments: [String: String] = [:]
            for (key, value) in body.arguments ?? [:] { arguments[key] = value ?? "" }
            try app.call(body.method, arguments: arguments)
            return .api(["accepted": true], status: .accepted)
        }
        router.post("/api/apps/{id}/login") { request in
            let app = try box.get().app(request.pathParameters["id"] ?? "")
            struct Body: Decodable {
                var username: String
                var password: String
            }
            let body = try request.decodeAPI(Body.self)
            try await app.login(username: body.username, password: body.password)
            return .api(["accepted": true], status: .accepted)
        }
    }
}
