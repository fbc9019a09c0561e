import ArgumentParser
import Foundation
import SubLedgerUseCases

/// Where Google Play is: flags, else environment, else Google's production endpoint. The OAuth2 token endpoint is
/// the one each app's service account key names (`token_uri`).
struct GooglePlayOptions: ParsableArguments {
    @Option(
        name: .customLong("google-play-api-url"),
        help:
            "Google Play Developer API base URL (env SUBLEDGER_GOOGLE_PLAY_API_URL, default https://androidpublisher.googleapis.com); play-sim's for tests."
    )
    var developerAPIURL: String?

    func apply(to configuration: inout GooglePlayGateway.Configuration, environment: [String: String]) throws {
        guard let url = developerAPIURL ?? environment["SUBLEDGER_GOOGLE_PLAY_API_URL"], !url.isEmpty else { return }
        guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil
        else { throw ValidationError("--google-play-api-url must be an http or https URL") }
        configuration.developerAPI.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}
