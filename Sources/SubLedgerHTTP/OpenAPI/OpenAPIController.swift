import Hummingbird
import NIOCore
import SubLedgerUseCases

/// `GET /openapi.yaml`: the OpenAPI 3.1 description of this API, as built into the binary (no API key).
struct OpenAPIController: Sendable {
    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        }
    }
}
