import Foundation
import SubLedgerCore
import SubLedgerStore
import Yams

/// The catalog file `subledger catalog apply` reads: the core's `Catalog` (apps, products, entitlements) and, beside
/// it, each app's secrets, which never travel inside the core's values. Parsing lives here, at the edge that reads
/// files; the store only stores what this returns (`CatalogStore.applyCatalog`).
public enum CatalogFile {
    /// Reads a catalog file (JSON, or YAML when the text is not JSON) and validates it, refusing as well an app
    /// that accepts Production without `apple_app_id` (`missing_apple_app_id`, see `Catalog.servingErrors`) and
    /// any key the file format does not know (`CatalogKeys`), so a misspelt setting never silently means its
    /// default.
    ///
    /// Besides the core's fields, each app may carry `shared_secret` (verifyReceipt, V1 notifications) and
    /// `server_api: {issuer_id, key_id, private_key_file | private_key}` (App Store Server API); these are
    /// returned separately so they never travel inside the core's values; `google_play` may carry, beside its
    /// `package_name`, `service_account_key_file | service_account_key` (the Developer API's JSON key). A relative
    /// `private_key_file` or `service_account_key_file` is read relative to `directory`; `stripe: {secret_key |
    /// secret_key_file, webhook_secret}` are the app's Stripe secrets, `paddle: {api_key | api_key_file,
    /// webhook_secret}` its Paddle secrets.
    public static func read(
        _ text: String, directory: String = "."
    ) throws(CatalogFileError) -> (catalog: Catalog, secrets: [String: AppSecrets]) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        struct Secrets: Decodable {
            struct ServerAPI: Decodable {
                var issuer_id: String
                var key_id: String
                var private_key: String?
                var private_key_file: String?
            }
            struct GooglePlay: Decodable {
                var service_account_key: String?
                var service_account_key_file: String?
            }
            struct Stripe: Decodable {
                var secret_key: String?
                var secret_key_file: String?
                var webhook_secret: String?
            }
            struct Paddle: Decodable {
                var api_key: String?
                var api_key_file: String?
                var webhook_secret: String?
            }
            struct AppSecret: Decodable {
                var stripe: Stripe?
                var paddle: Paddle?
                var bundle_id: String
                var shared_secret: String?
                var server_api: ServerAPI?
                var google_play: GooglePlay?
            }
            var apps: [AppSecret]
        }
        do {
            let catalog: Catalog
            let secrets: Secrets
            if trimmed.hasPrefix("{") {
                try CatalogKeys.check(try JSONDecoder().decode(CatalogKeys.Node.self, from: Data(trimmed.utf8)))
                catalog = try JSONDecoder().decode(Catalog.self, from: Data(trimmed.utf8))
                secrets = try JSONDecoder().decode(Secrets.self, from: Data(trimmed.utf8))
            } else {
                try CatalogKeys.check(try YAMLDecoder().decode(CatalogKeys.Node.self, from: trimmed))
                catalog = try YAMLDecoder().decode(Catalog.self, from: trimmed)
                secrets = try YAMLDecoder().decode(Secrets.self, from: trimmed)
            }
            try catalog.validateForServing()
            var result: [String: AppSecrets] = [:]
            for app in secrets.apps {
                var serverAPI: ServerAPICredentials?
                if let api = app.server_api {
                    var pem = api.private_key
                    if pem == nil, let file = api.private_key_file {
                        let path = file.hasPrefix("/") ? file : directory + "/" + file
                        guard let data = FileManager.default.contents(atPath: path) else {
                            throw CatalogFileError("cannot read the Server API key \(path) of \(app.bundle_id)")
                        }
                        pem = String(decoding: data, as: UTF8.self)
                    }
                    guard let pem, pem.contains("PRIVATE KEY") else {
                        throw CatalogFileError(
                            "server_api of \(app.bundle_id) needs private_key_file or private_key (a .p8 PEM key)")
                    }
                    serverAPI = ServerAPICredentials(issuerID: api.issuer_id, keyID: api.key_id, privateKeyPEM: pem)
                }
                var googleKey = app.google_play?.service_account_key
                if googleKey == nil, let file = app.google_play?.service_account_key_file {
                    let path = file.hasPrefix("/") ? file : directory + "/" + file
                    guard let data = FileManager.default.contents(atPath: path), data.count <= 16 * 1024 else {
                        throw CatalogFileError(
                            "cannot read the Google Play service account key \(path) of \(app.bundle_id) (at most 16 KiB)"
                        )
                    }
                    googleKey = String(decoding: data, as: UTF8.self)
                }
                if let googleKey {
                    // The whole key is checked where it is used (GooglePlay.ServiceAccountKey); here only its shape.
                    let object = try? JSONSerialization.jsonObject(with: Data(googleKey.utf8)) as? [String: Any]
                    guard let object, object["type"] as? String == "service_account", object["private_key"] is String,
                        object["client_email"] is String
                    else {
                        throw CatalogFileError(
                            "google_play of \(app.bundle_id): the service account key is not a JSON key file of a "
                                + "service account (type, private_key, client_email)")
                    }
                }
                // Each store's secrets by the names its module reads them by (GooglePlaySecrets, StripeSecrets,
                // PaddleSecrets).
                var stores = StoreSecrets()
                stores[.googlePlay, "service_account_key"] = googleKey
                if let stripe = app.stripe {
                    let (secretKey, webhookSecret) = try stripeSecrets(
                        stripe.secret_key, file: stripe.secret_key_file, webhookSecret: stripe.webhook_secret,
                        bundleID: app.bundle_id, directory: directory)
                    stores[.stripe, "secret_key"] = secretKey
                    stores[.stripe, "webhook_secret"] = webhookSecret
                }
                if let paddle = app.paddle {
                    let (apiKey, webhookSecret) = try paddleSecrets(
                        paddle.api_key, file: paddle.api_key_file, webhookSecret: paddle.webhook_secret,
                        bundleID: app.bundle_id, directory: directory)
                    stores[.paddle, "api_key"] = apiKey
                    stores[.paddle, "webhook_secret"] = webhookSecret
                }
                result[app.bundle_id] = AppSecrets(
                    sharedSecret: app.shared_secret, serverAPI: serverAPI, stores: stores)
            }
            return (catalog, result)
        } catch let error as CatalogFileError {
            throw error
        } catch let error as CatalogError {
            throw CatalogFileError("\(error)")
        } catch let error as DecodingError {
            throw CatalogFileError(Self.describe(error))
        } catch {
            throw CatalogFileError("\(error)")
        }
    }

    /// An app's `stripe:` settings: the secret key (given, or read from `secret_key_file`) and the webhook
    /// endpoint's signing secret, both required and checked for shape (`sk_…`/`rk_…`, `whsec_…`).
    private static func stripeSecrets(
        _ secretKey: String?, file: String?, webhookSecret: String?, bundleID: String, directory: String
    ) throws(CatalogFileError) -> (secretKey: String, webhookSecret: String) {
        var key = secretKey
        if key == nil, let file {
            let path = file.hasPrefix("/") ? file : directory + "/" + file
            guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
                throw CatalogFileError("cannot read the Stripe secret key \(path) of \(bundleID) (at most 4 KiB)")
            }
            key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func printable(_ text: String) -> Bool {
            (8...1024).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
        }
        guard let key, key.hasPrefix("sk_") || key.hasPrefix("rk_"), printable(key) else {
            throw CatalogFileError(
                "stripe of \(bundleID) needs secret_key or secret_key_file: a Stripe secret key (sk_…) or restricted key (rk_…)"
            )
        }
        guard let webhookSecret, webhookSecret.hasPrefix("whsec_"), printable(webhookSecret) else {
            throw CatalogFileError(
                "stripe of \(bundleID) needs webhook_secret: the signing secret (whsec_…) of its webhook endpoint")
        }
        return (key, webhookSecret)
    }

    /// An app's `paddle:` settings: the API key (given, or read from `api_key_file`) and the notification setting's
    /// endpoint secret key, both required and checked for shape (`pdl_…`, `pdl_ntfset_…`).
    private static func paddleSecrets(
        _ apiKey: String?, file: String?, webhookSecret: String?, bundleID: String, directory: String
    ) throws(CatalogFileError) -> (apiKey: String, webhookSecret: String) {
        var key = apiKey
        if key == nil, let file {
            let path = file.hasPrefix("/") ? file : directory + "/" + file
            guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
                throw CatalogFileError("cannot read the Paddle API key \(path) of \(bundleID) (at most 4 KiB)")
            }
            key = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func printable(_ text: String) -> Bool {
            (8...1024).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7E).contains($0) }
        }
        guard let key, key.hasPrefix("pdl_"), printable(key) else {
            throw CatalogFileError(
                "paddle of \(bundleID) needs api_key or api_key_file: a Paddle API key (pdl_live_… or pdl_sdbx_…)")
        }
        guard let webhookSecret, webhookSecret.hasPrefix("pdl_ntfset_"), printable(webhookSecret) else {
            throw CatalogFileError(
                "paddle of \(bundleID) needs webhook_secret: the endpoint secret key (pdl_ntfset_…) of its notification setting"
            )
        }
        return (key, webhookSecret)
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)' at \(path(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            if let underlying = context.underlyingError as? CatalogError { return "\(underlying)" }
            return "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty
            ? "the top level"
            : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}
