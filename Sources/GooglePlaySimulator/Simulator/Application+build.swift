import Foundation
import GooglePlay
import Hummingbird
import NIOCore

extension GooglePlaySimulator {
    /// The router: the Android Publisher API under `/androidpublisher/v3`, the token endpoint `POST /token`,
    /// the push-token JWKS at `/oauth2/v3/certs`, and `/control`.
    static func buildRouter(
        engine: SimulatorEngine, control: SimulatorControl, tokenAudiences: @escaping @Sendable () -> Set<String>,
        serviceAccountJSON: @escaping @Sendable () -> Data
    ) throws -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let jwks = try engine.keys.pushKeySet.jsonData()
        ControlRoutes(control: control, serviceAccountJSON: serviceAccountJSON, jwksJSON: jwks).register(on: router)
        let developerAPI = DeveloperAPIResponder(engine: engine)

        router.get("/oauth2/v3/certs") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: jwks)))
        }
        router.post("/token") { request, _ in
            var request = request
            guard let body = try? await request.collectBody(upTo: OAuthTokenExchange.maximumBodyBytes) else {
                return GoogleAnswer.json(
                    OAuthErrorResponse(error: "invalid_request", errorDescription: "The body is too large."),
                    status: 400
                ).response
            }
            if let fault = engine.faults.draw(.token), let answer = await Self.faultAnswer(fault) {
                return answer.response
            }
            return TokenEndpoint(engine: engine, audiences: tokenAudiences()).respond(body: Data(buffer: body)).response
        }
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            var request = request
            guard let body = try? await request.collectBody(upTo: 64 * 1024) else {
                return GoogleAnswer.error(400, "The request body is too large.", reason: "invalid").response
            }
            if let fault = engine.faults.draw(.developerApi), let answer = await Self.faultAnswer(fault) {
                return answer.response
            }
            var query: [(name: String, value: String)] = []
            for (name, value) in request.uri.queryParameters {
                query.append((String(name), String(value).removingPercentEncoding ?? String(value)))
            }
            return await developerAPI.respond(
                method: request.method.rawValue, path: request.uri.path, queryItems: query, body: Data(buffer: body),
                authorization: request.headers[.authorization]
            ).response
        }
        router.get("/androidpublisher/**", use: handler)
        router.post("/androidpublisher/**", use: handler)
        return router
    }

    /// A fault's answer; `nil` for `latency`, which only delays the normal answer.
    static func faultAnswer(_ fault: FaultRule) async -> GoogleAnswer? {
        switch fault.kind {
        case "latency":
            try? await Task.sleep(for: .milliseconds(fault.latencyMs ?? 200))
            return nil
        case "http_503":
            return .error(503, "The service is currently unavailable.", reason: "backendError")
        default:
            return .error(500, "Internal error encountered.", reason: "backendError")
        }
    }
}

extension GoogleAnswer {
    var response: Response {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}
