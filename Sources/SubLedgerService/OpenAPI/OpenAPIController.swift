import Hummingbird
import NIOCore

/// `GET /openapi.yaml`: the OpenAPI 3.1 description of this API, as built into the binary (no API key).
struct OpenAPIController: Sendable {
    func register(on router: Router<SubLedgerRequestContext>) {
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/yaml; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
        }
    }
}

/// The repository's `openapi.yaml`, embedded at build time.
public enum OpenAPIDocument {
    /// The document's bytes.
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
    /// The document as text.
    public static var text: String { String(decoding: PackageResources.openapi_yaml, as: UTF8.self) }
}
