import Foundation
import SubLedgerCore
import _CryptoExtras

/// A Google Cloud service account's JSON key file, as the Cloud console downloads it: what SubLedger needs to
/// call the Android Publisher API as that account.
public struct ServiceAccountKey: Sendable {
    /// The largest key file read (they are about 2.3 KB).
    public static let maximumFileBytes = 16 * 1024

    /// `project_id`.
    public var projectID: String?
    /// `private_key_id`: the `kid` of the assertions signed with the key.
    public var privateKeyID: String
    /// `client_email`: the account, the assertions' `iss`.
    public var clientEmail: String
    /// `client_id`.
    public var clientID: String?
    /// `token_uri`: where assertions are exchanged for access tokens, and their `aud`.
    public var tokenURI: String
    /// The account's private key.
    public var privateKey: _RSA.Signing.PrivateKey
    /// The key's PEM text, as the file holds it.
    public var privateKeyPEM: String

    /// A key from its parts (the simulator makes its own account this way).
    public init(
        projectID: String?, privateKeyID: String, clientEmail: String, clientID: String?, tokenURI: String,
        privateKey: _RSA.Signing.PrivateKey
    ) {
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.clientEmail = clientEmail
        self.clientID = clientID
        self.tokenURI = tokenURI
        self.privateKey = privateKey
        self.privateKeyPEM = privateKey.pkcs8PEMRepresentation
    }

    /// Reads a key file: `type` must be `service_account`; `client_email`, `private_key_id`, `private_key` (an RSA
    /// key of 2048 bits or more, PEM) and `token_uri` (https, or http to a loopback host) are required.
    public init(jsonData data: Data) throws(ServiceAccountKeyError) {
        guard data.count <= Self.maximumFileBytes else { throw ServiceAccountKeyError(.tooLarge) }
        guard !data.contains(0), String(validating: data, as: UTF8.self) != nil else {
            throw ServiceAccountKeyError(.malformed)
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw ServiceAccountKeyError(.malformed)
        }
        guard file.type == "service_account" else { throw ServiceAccountKeyError(.notAServiceAccount) }
        guard let email = file.client_email, WireText.isAcceptable(email, maximumLength: 320), email.contains("@")
        else { throw ServiceAccountKeyError(.missingField, field: "client_email") }
        guard let keyID = file.private_key_id, WireText.isAcceptable(keyID, maximumLength: 256) else {
            throw ServiceAccountKeyError(.missingField, field: "private_key_id")
        }
        guard let tokenURI = file.token_uri, Self.isAcceptableTokenURI(tokenURI) else {
            throw ServiceAccountKeyError(.missingField, field: "token_uri")
        }
        guard let pem = file.private_key, pem.utf8.count <= 8192 else {
            throw ServiceAccountKeyError(.missingField, field: "private_key")
        }
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw ServiceAccountKeyError(.invalidPrivateKey)
        }
        self.projectID = file.project_id
        self.privateKeyID = keyID
        self.clientEmail = email
        self.clientID = file.client_id
        self.tokenURI = tokenURI
        self.privateKey = key
        self.privateKeyPEM = pem
    }

    /// The key file's JSON (the fields Google's own files have, `auth_uri` and the certificate URLs aside).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return try encoder.encode(
            File(
                type: "service_account", project_id: projectID, private_key_id: privateKeyID,
                private_key: privateKeyPEM, client_email: clientEmail, client_id: clientID, token_uri: tokenURI))
    }

    /// The scope of the Android Publisher API.
    public static let androidPublisherScope = "https://www.googleapis.com/auth/androidpublisher"

    /// The signed JWT assertion of the OAuth2 service-account flow: header `alg` RS256, `typ` JWT, `kid` the
    /// private key id; claims `iss` the account, `scope`, `aud` the token URI, `iat` now and `exp` an hour later.
    public func assertion(now: Instant, scope: String = ServiceAccountKey.androidPublisherScope) throws -> String {
        let issuedAt = now.millisecondsSince1970 / 1000
        return try RS256.sign(
            header: CompactJWT.Header(alg: "RS256", kid: privateKeyID, typ: "JWT"),
            claims: AssertionClaims(
                iss: clientEmail, scope: scope, aud: tokenURI, iat: issuedAt, exp: issuedAt.saturatingAdding(3600)),
            with: privateKey)
    }

    /// https, or http to a loopback host (a simulator), with a host.
    static func isAcceptableTokenURI(_ text: String) -> Bool {
        guard WireText.isAcceptable(text, maximumLength: 2048), let url = URL(string: text), let host = url.host
        else { return false }
        switch url.scheme {
        case "https": return true
        case "http": return host == "127.0.0.1" || host == "localhost" || host == "::1" || host == "[::1]"
        default: return false
        }
    }

    private struct File: Codable {
        var type: String?
        var project_id: String?
        var private_key_id: String?
        var private_key: String?
        var client_email: String?
        var client_id: String?
        var token_uri: String?
    }
}

/// The claims of a service account's assertion.
struct AssertionClaims: Codable {
    var iss: String
    var scope: String
    var aud: String
    var iat: Int64
    var exp: Int64
}

/// Why a service-account key file was not read.
public struct ServiceAccountKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Larger than `maximumFileBytes`.
        public static let tooLarge = Code("tooLarge")
        /// Not UTF-8 JSON (or holds a NUL).
        public static let malformed = Code("malformed")
        /// `type` is not `service_account`.
        public static let notAServiceAccount = Code("notAServiceAccount")
        /// A required field is missing or unacceptable (`field` names it).
        public static let missingField = Code("missingField")
        /// `private_key` is not an RSA private key of 2048 bits or more in PEM.
        public static let invalidPrivateKey = Code("invalidPrivateKey")

        public var description: String { name }
    }

    public let code: Code
    /// The field at fault, for `missingField`.
    public let field: String?

    public init(_ code: Code, field: String? = nil) {
        self.code = code
        self.field = field
    }

    public var description: String {
        field.map { "ServiceAccountKeyError(\(code): \($0))" } ?? "ServiceAccountKeyError(\(code))"
    }
}
