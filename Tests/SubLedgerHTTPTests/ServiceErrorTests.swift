import AppStore
import HTTPTypes
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import AppStoreStore
@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// The layers' typed errors and the one place that turns them into HTTP answers (`HTTPErrorMapping`).
@Suite struct ServiceErrorTests {
    /// The renewal job retries exactly what a client is told to retry later: a transient refusal is the one
    /// answered with a 5xx (the rule the job read from the status before the errors were typed).
    @Test(arguments: IngestionError.Code.allCases)
    func transientRefusalsAreExactlyTheOnesAnsweredWithA5xx(code: IngestionError.Code) {
        let error = IngestionError(code, "a message")
        let answer = APIError(error)
        #expect((answer.status.code >= 500) == error.isTransient)
        #expect(answer.code == code.rawValue)
        #expect(answer.message == "a message")
    }

    @Test func appleUnavailableAsksTheClientToComeBackAfterTheDelay() {
        let answer = APIError(
            IngestionError(.appleUnavailable, "Apple is unavailable", retryAfter: .milliseconds(1_500)))
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.retryAfterSeconds == 2)
        #expect(APIError(IngestionError(.invalidReceipt, "no")).retryAfterSeconds == nil)
    }

    @Test func anOpenCircuitBreakerIsToldAsAppleUnavailableWithTheBreakersWait() {
        let refusal = IngestionError(AppleGatewayError.circuitOpen(retryAfter: .seconds(12)))
        #expect(refusal.code == .appleUnavailable)
        #expect(refusal.isTransient)
        #expect(refusal.message == "Apple keeps failing; the input is stored and will be verified when Apple answers")
        let answer = APIError(AppleGatewayError.circuitOpen(retryAfter: .seconds(12)))
        #expect(answer.status == .serviceUnavailable)
        #expect(answer.code == "apple_unavailable")
        #expect(answer.retryAfterSeconds == 12)
    }

    @Test func anAppThatCannotVerifyAnEnvironmentIsOurFaultButAnEnvironmentItRefusesIsNot() {
        let misconfigured = IngestionError(
            AppleGatewayError.appMisconfigured(bundleID: "com.example", environment: .production, reason: "no app id"))
        #expect(misconfigured.code == .appMisconfigured)
        #expect(misconfigured.isTransient)
        #expect(misconfigured.message == "com.example cannot verify Production data: no app id")
        let notAllowed = IngestionError(AppleGatewayError.environmentNotAllowed(.sandbox, bundleID: "com.example"))
        #expect(notAllowed.code == .environmentNotAllowed)
        #expect(!notAllowed.isTransient)
        #expect(APIError(notAllowed).status == .unprocessableContent)
        #expect(notAllowed.message == "Sandbox is not an accepted environment of com.example")
    }

    @Test func keyRefusalsAreAnsweredAsTheClientsMistake() {
        #expect(APIError(APIKeyError.invalidKeyName).status == .badRequest)
        #expect(APIError(APIKeyError.invalidKeyID).status == .badRequest)
        let unknown = APIError(APIKeyError.unknownApp(bundleID: "com.example.none"))
        #expect(unknown.status == .notFound)
        #expect(unknown.code == "unknown_app")
        #expect(unknown.message == "no app with bundle id 'com.example.none'; run `subledger catalog apply` first")
        let adminKey = APIError(APIKeyError.appKeyRequired)
        #expect(adminKey.status == .forbidden)
        #expect(adminKey.code == "wrong_key_scope")
        let removed = APIError(APIKeyError.keyAppRemoved)
        #expect(removed.status == .notFound)
        #expect(removed.code == "unknown_app")
    }

    /// One reading of a verifyReceipt answer serves a submitted receipt and the renewal job alike.
    @Test func verifyReceiptOutcomesThatCreditNothingBecomeOneRefusalEach() {
        let app = StoredApp(
            appID: 1, definition: App(bundleID: "com.example", products: []), sharedSecret: nil)
        let failure = VerifyReceiptFailure(code: .timeout, environment: .production)
        let cases: [(VerifyReceiptOutcome, IngestionError.Code, Bool)] = [
            (.invalidReceipt(failure), .invalidReceipt, false),
            (.configurationError(failure), .appleConfigurationError, true),
            (.retryable(failure), .appleUnavailable, true),
            (.upstreamFailure(failure), .appleUnavailable, true),
        ]
        for (outcome, code, transient) in cases {
            do {
                _ = try Ingestion.normalizedReceipt(outcome, app: app)
                Issue.record("\(code) credited a receipt")
            } catch {
                #expect(error.refusal.code == code)
                #expect(error.refusal.isTransient == transient)
                #expect(error.failure == failure.description)
            }
        }
    }
}
