import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// What the app server tells SubLedger for Apple's refund questions: the customer's consent to share
/// consumption data (`POST /v1/accounts/{id}/consent`) and the use of a purchase (`POST /v1/accounts/{id}/usage`).
/// Both are appended, never changed; the latest record is in force.
struct ConsumptionController: Sendable {
    let apps: AppDirectory
    let records: ConsumptionRecords
    let now: @Sendable () -> Instant

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("accounts/:account_id/consent") { request, context in try await consent(request, context) }
        group.post("accounts/:account_id/usage") { request, context in try await usage(request, context) }
    }

    struct ConsentRequest: JSONRequestBody {
        var consented: Bool?
        var at: String?
        static let fields: Set<String> = ["consented", "at"]
        /// A null would record a consent the client did not state.
        static let refusesNull = true
    }

    struct ConsentBody: ResponseEncodable {
        var consent_id: Int64
        var account_id: String
        var consented: Bool
        var at: String?
    }

    /// Records consent (`"consented": true`) or its withdrawal (`false`), given at `at` (default now).
    func consent(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<ConsentBody> {
        let app = try await apps.app(for: try context.requireKey())
        let account = try accountID(context)
        let body = try await request.decodeJSON(as: ConsentRequest.self, context: context)
        guard let consented = body.consented else {
            throw APIError.badRequest(.missingConsented, "'consented' (true or false) is required")
        }
        var instant = now()
        if let at = body.at {
            guard let parsed = Representation.instant(at) else {
                throw APIError.badRequest(
                    .invalidTime, Representation.timeRule)
            }
            guard parsed <= instant else {
                throw APIError.badRequest(.invalidTime, "'at' must not be in the future")
            }
            instant = parsed
        }
        let id = try await records.recordConsent(
            ConsumptionConsent(consented: consented, at: instant), account: account, app: app)
        return EditedResponse(
            status: .created,
            response: ConsentBody(
                consent_id: id, account_id: account.rawValue, consented: consented, at: Representation.time(instant)))
    }

    struct UsageRequest: JSONRequestBody {
        var transaction_id: String?
        var consumption_percentage: Double?
        var play_time_minutes: Int64?
        var sample_content_provided: Bool?
        var delivery_status: String?
        static let fields: Set<String> = [
            "transaction_id", "consumption_percentage", "play_time_minutes", "sample_content_provided",
            "delivery_status",
        ]
        /// A null would record a use the client did not state.
        static let refusesNull = true
    }

    struct UsageBody: ResponseEncodable {
        var usage_id: Int64
        var account_id: String
        var transaction_id: String
        var consumption_percentage: Double?
        var play_time_minutes: Int64?
        var sample_content_provided: Bool?
        var delivery_status: String?
    }

    /// Records how much of a transaction the customer used, and whether it was delivered.
    func usage(_ request: Request, _ context: SubLedgerRequestContext) async throws -> EditedResponse<UsageBody> {
        let app = try await apps.app(for: try context.requireKey())
        let account = try accountID(context)
        let body = try await request.decodeJSON(as: UsageRequest.self, context: context)
        guard let rawTransactionID = body.transaction_id else {
            throw APIError.badRequest(.missingTransactionID, "'transaction_id' is required")
        }
        let transactionID: String
        let usage: ConsumptionUsage
        // A ConsumptionInputError is answered 400 with its code by ErrorMiddleware (HTTPErrorMapping).
        transactionID = try ConsumptionUsage.validatedTransactionID(rawTransactionID)
        usage = try ConsumptionUsage.validated(
            consumptionPercentage: body.consumption_percentage, playTimeMinutes: body.play_time_minutes,
            sampleContentProvided: body.sample_content_provided, deliveryStatus: body.delivery_status)
        let id = try await records.recordUsage(usage, transactionID: transactionID, account: account, app: app)
        return EditedResponse(
            status: .created,
            response: UsageBody(
                usage_id: id, account_id: account.rawValue, transaction_id: transactionID,
                consumption_percentage: usage.consumedMilliunits.map { Double($0) / 1000 },
                play_time_minutes: usage.playTimeMinutes, sample_content_provided: usage.sampleContentProvided,
                delivery_status: usage.deliveryStatus?.rawValue))
    }
}
