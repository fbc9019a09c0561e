import ArgumentParser
import Foundation
import GooglePlayStore

/// Where Google Play is: flags, else environment, else Google's production endpoint. The OAuth2 token endpoint is
/// the one each app's service account key names (`token_uri`).
struct GooglePlayOptions: ParsableArguments {
    @Option(
        name: .customLong("google-play-api-url"),
        help:
            "Google Play Developer API base URL (env SUBLEDGER_GOOGLE_PLAY_API_URL, default https://androidpublisher.googleapis.com); play-sim's for tests."
    )
    var developerAPIURL: String?

    @Option(
        name: .customLong("google-push-keys-url"),
        help:
            "JWKS of the OIDC tokens on Google Play's notification pushes (env SUBLEDGER_GOOGLE_PUSH_KEYS_URL, default https://www.googleapis.com/oauth2/v3/certs); play-sim's for tests."
    )
    var pushKeysURL: String?

    func apply(to configuration: inout GooglePlayGateway.Configuration, environment: [String: String]) throws {
        if let url = developerAPIURL ?? environment["SUBLEDGER_GOOGLE_PLAY_API_URL"], !url.isEmpty {
            try Self.check(url, "--google-play-api-url")
            configuration.developerAPI.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        if let url = pushKeysURL ?? environment["SUBLEDGER_GOOGLE_PUSH_KEYS_URL"], !url.isEmpty {
            try Self.check(url, "--google-push-keys-url")
            configuration.pushKeys.url = url
        }
    }

    private static func check(_ url: String, _ option: String) throws {
        guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil
        else { throw ValidationError("\(option) must be an http or https URL") }
    }
}
