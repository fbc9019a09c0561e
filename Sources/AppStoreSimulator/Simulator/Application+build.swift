import AppStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import SubLedgerCore

extension AppStoreSimulator {
    /// The router: Apple's endpoints (production at the root, sandbox under `/sandbox`) and `/control`.
    static func buildRouter(engine: SimulatorEngine, control: SimulatorControl) throws -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let verifyReceipt = VerifyReceiptResponder(engine: engine)
        let serverAPI = ServerAPIResponder(engine: engine)
        let root = engine.signer.chain.root
        ControlRoutes(
            control: control, rootCertificateDER: try SigningChain.der(root),
            rootCertificatePEM: try root.serializeAsPEM().pemString
        ).register(on: router)
        // The traceparent headers SubLedger sent (a trace test reads them); the middleware covers only the routes
        // registered after it, Apple's below.
        let traceContexts = ReceivedTraceContexts()
        router.get("control/trace-contexts") { _, _ in ControlRoutes.json(traceContexts.all) }
        router.add(middleware: TraceContextRecorder(contexts: traceContexts))

        for (prefix, environment) in [("", StoreEnvironment.production), ("/sandbox", .sandbox)] {
            router.post("\(prefix)/verifyReceipt") { request, _ in
                var request = request
                let body = try await request.collectBody(upTo: 16 * 1024 * 1024)
                engine.verifyReceiptRequests.record(environment)
                if let fault = engine.faults.draw(.verifyReceipt),
                    let response = await FaultResponses.verifyReceipt(
                        fault, environment: environment, faults: engine.faults)
                {
                    return response
                }
                let json = verifyReceipt.answer(body: Data(buffer: body), endpoint: environment)
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: json)))
            }
            let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
                var request = request
                let body = try await request.collectBody(upTo: 1024 * 1024)
                if let fault = engine.faults.draw(.serverAPI),
                    let response = await FaultResponses.serverAPI(fault, faults: engine.faults)
                {
                    return response
                }
                var path = request.uri.path
                if !prefix.isEmpty, path.hasPrefix(prefix) { path.removeFirst(prefix.count) }
                var query: [String: [String]] = [:]
                for (name, value) in request.uri.queryParameters {
                    query[String(name), default: []].append(String(value).removingPercentEncoding ?? String(value))
                }
                let authorization = request.headers[.authorization]
                let answer: SimpleResponse
                if request.method == .post, path == "/inApps/v1/notifications/test" {
                    answer = await serverAPI.requestTestNotification(
                        authorization: authorization, environment: environment, control: control)
                } else {
                    answer = serverAPI.respond(
                        method: request.method.rawValue, path: path, query: query, body: Data(buffer: body),
                        authorization: authorization, environment: environment)
                }
                return answer.response
            }
            router.get("\(prefix)/inApps/**", use: handler)
            router.post("\(prefix)/inApps/**", use: handler)
            router.put("\(prefix)/inApps/**", use: handler)  // renewal-date extensions, Send Consumption Information
            // The External Purchase Server API: same keys and bearer tokens as the App Store Server API.
            router.get("\(prefix)/externalPurchase/**", use: handler)
            router.put("\(prefix)/externalPurchase/**", use: handler)
        }
        return router
    }
}

extension SimpleResponse {
    var response: Response {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        if let retryAfter { fields[.retryAfter] = retryAfter }
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields,
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
