import AppStore
import Foundation
import SubLedgerCore

/// Apple's published test vectors, copied into this target's resources with Apple's license.
enum TestResources {
    static func url(_ relativePath: String) -> URL {
        let base =
            Bundle.module.url(forResource: "Resources", withExtension: nil)
            ?? Bundle.module.bundleURL.appendingPathComponent("Resources")
        return base.appendingPathComponent(relativePath)
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    static func string(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func signedData(_ name: String) throws -> String { try string("mock_signed_data/\(name)") }

    static func model(_ name: String) throws -> Data { try data("models/\(name).json") }

    static func testRoot() throws -> TrustedRoot {
        try TrustedRoot(derOrPEM: data("certs/testCA.der"), strictRFC5280: false)
    }

    /// A verifier for Apple's test vectors: sandbox, `com.example`, app id 1234, test root.
    static func vectorVerifier(
        bundleID: String = "com.example",
        environment: StoreEnvironment = .sandbox,
        roots: [TrustedRoot]? = nil,
        validationTime: CertificateValidationTime = .signedDate
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            configuration: .init(
                bundleID: bundleID,
                appAppleID: 1234,
                environment: environment,
                signature: .init(roots: roots ?? [testRoot()], validationTime: validationTime)
            ),
            now: { Instant(millisecondsSince1970: 1_700_000_000_000) }
        )
    }
}
