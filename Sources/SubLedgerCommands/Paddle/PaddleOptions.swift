import ArgumentParser
import Foundation
import PaddleClients
import SubLedgerUseCases

/// Where Paddle is: the flag, else the environment, else Paddle's live API.
struct PaddleOptions: ParsableArguments {
    @Option(
        name: .customLong("paddle-api-url"),
        help:
            "Paddle API base URL (env SUBLEDGER_PADDLE_API_URL, default Paddle's, the sandbox's for a pdl_sdbx_ key); paddle-sim's for tests."
    )
    var apiURL: String?

    func apply(to configuration: inout PaddleAPI.Configuration, environment: [String: String]) throws {
        if let url = apiURL ?? environment["SUBLEDGER_PADDLE_API_URL"], !url.isEmpty {
            guard let parsed = URL(string: url), parsed.scheme == "https" || parsed.scheme == "http", parsed.host != nil
            else { throw ValidationError("--paddle-api-url must be an http or https URL") }
            configuration.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
    }
}
