import SubLedgerUseCases

/// The repository's `openapi.yaml`, embedded at build time.
public enum OpenAPIDocument {
    /// The document's bytes.
    public static var bytes: [UInt8] { PackageResources.openapi_yaml }
    /// The document as text.
    public static var text: String { String(decoding: PackageResources.openapi_yaml, as: UTF8.self) }
}
