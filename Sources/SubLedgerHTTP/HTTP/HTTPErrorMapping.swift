import HTTPTypes
import SubLedgerCore
import SubLedgerReports
import SubLedgerUseCases

/// The one place where the service's typed errors become HTTP answers: a status, the error shape's code and
/// message, and `Retry-After` for the transient ones. `ErrorMiddleware` applies it to whatever a route
/// throws; nothing below the HTTP edge knows a status.
extension APIError {
    /// How a client is answered when the ingestion refuses or defers its input.
    init(_ error: IngestionError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .foreignReceipt, .invalidReceipt, .invalidSignedTransaction, .invalidAppTransaction,
                .invalidNotificationPayload, .unknownApp, .environmentNotAllowed, .invalidPurchase,
                .purchaseNotCompleted:
                .unprocessableContent
            case .malformedJWS, .malformedNotification, .unknownNotification: .badRequest
            case .invalidSignature, .invalidNotification, .invalidPushToken: .unauthorized
            case .appleUnavailable, .googlePlayUnavailable, .stripeUnavailable, .storeUnavailable: .serviceUnavailable
            case .appleConfigurationError, .serverAPIRefused, .googlePlayConfigurationError, .stripeConfigurationError,
                .storeConfigurationError:
                .badGateway
            case .appMisconfigured: .internalServerError
            }
        self.init(
            status, mappedCode: error.code.rawValue, message: error.message,
            retryAfterSeconds: error.retryAfter?.retryAfterSeconds)
    }

    /// How a client is answered when the way to Apple cannot be used (normally told by the ingestion first).
    init(_ error: AppleGatewayError) {
        self.init(IngestionError(error))
    }

    /// How a web checkout a store refused is answered, whichever store's (`WebCheckoutRefusal`).
    init(_ refusal: WebCheckoutRefusal) {
        switch refusal.code {
        case .invalidValue: self = .badRequest(.invalidValue, refusal.message)
        case .productNotSold: self = .unprocessable(.unknownProduct, refusal.message)
        case .priceMismatch, .trialNotOffered: self = .unprocessable(.invalidValue, refusal.message)
        case .externalPurchaseNotReported: self = .unprocessable(.externalPurchaseNotReported, refusal.message)
        case .invalidExternalPurchaseToken: self = .badRequest(.invalidExternalPurchaseToken, refusal.message)
        case .externalPurchaseTokenTaken:
            self.init(.conflict, code: .externalPurchaseTokenTaken, message: refusal.message)
        }
    }

    /// How a report that cannot be produced is answered: bad arguments 400, nothing to report on 404.
    init(_ error: ReportError) {
        let status: HTTPResponse.Status = error.code == .invalidArgument ? .badRequest : .notFound
        self.init(status, mappedCode: error.code.rawValue, message: error.message)
    }

    /// How an app server's consumption report that breaks Apple's rules is refused.
    init(_ error: ConsumptionInputError) {
        self.init(.badRequest, mappedCode: error.code.description, message: error.message)
    }

    /// How a key, or a request to create or revoke one, is refused.
    init(_ error: APIKeyError) {
        let status: HTTPResponse.Status =
            switch error {
            case .invalidKeyName, .invalidKeyID, .appNamedWrongly: .badRequest
            case .unknownApp, .keyAppRemoved: .notFound
            case .appKeyRequired: .forbidden
            }
        self.init(status, mappedCode: error.code, message: error.message)
    }

    /// How a support lookup (`/v1/admin/lookup/...`) is refused.
    init(_ error: SupportError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .invalidOrderID, .invalidTransactionID, .invalidAppAccountToken, .invalidAccountID,
                .invalidAppTransactionID, .invalidPurchaseToken, .invalidStripeID, .invalidStoreID, .appRequired:
                .badRequest
            case .unknownApp, .orderNotFound, .transactionNotFound, .appAccountTokenNotFound, .accountNotFound,
                .appTransactionNotFound, .purchaseTokenNotFound, .stripeIDNotFound, .storeIDNotFound:
                .notFound
            case .serverAPINotConfigured: .conflict
            case .appleUnavailable: .serviceUnavailable
            case .appleRefused: .badGateway
            }
        self.init(
            status, mappedCode: error.code.rawValue, message: error.message,
            retryAfterSeconds: error.retryAfter?.retryAfterSeconds)
    }

    /// How a request for offer signatures is refused: a bad field 400, a product that cannot have offers 422,
    /// an app whose catalog gives no usable In-App Purchase key 409 (the client cannot fix it by retrying).
    init(_ error: OfferError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .missingAccountID, .invalidAccountID, .missingProductID, .invalidProductID, .invalidOfferIdentifier,
                .invalidAppAccountToken, .invalidTransactionID:
                .badRequest
            case .unknownProduct, .productNotAutoRenewable: .unprocessableContent
            case .keyNotConfigured, .keyUnusable: .conflict
            case .signingFailed: .internalServerError
            }
        self.init(status, mappedCode: error.code.rawValue, message: error.message)
    }

    /// How a webhook management request is refused: an unknown app or endpoint 404, anything else 400.
    init(_ error: WebhookAdminError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .unknownApp, .unknownEndpoint: .notFound
            case .replayTooLarge: .unprocessableContent
            default: .badRequest
            }
        self.init(status, mappedCode: error.code.rawValue, message: error.message)
    }

    /// How a merge or a listing of aliases is refused: an unknown app 404, a merge into itself 422, an account
    /// merged already 409, anything else 400.
    init(_ error: MergeError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .unknownApp: .notFound
            case .mergeIntoSelf: .unprocessableContent
            case .accountMerged: .conflict
            default: .badRequest
            }
        self.init(status, mappedCode: error.code.rawValue, message: error.message)
    }

    /// How an erasure, or what names an erased account, is refused: an unknown app or account 404, an erased
    /// account 410, an installation without a secret key 409, anything else 400.
    init(_ error: ErasureError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .unknownApp, .accountNotFound: .notFound
            case .accountErased: .gone
            case .secretKeyRequired: .conflict
            default: .badRequest
            }
        self.init(status, mappedCode: error.code.rawValue, message: error.message)
    }

    /// How a grant, a revocation or a listing of grants is refused: an unknown app or grant 404, a reused
    /// idempotency key 409, anything else 400.
    init(_ error: GrantError) {
        let status: HTTPResponse.Status =
            switch error.code {
            case .unknownApp, .grantNotFound: .notFound
            case .idempotencyKeyReused: .conflict
            default: .badRequest
            }
        self.init(status, mappedCode: error.code.rawValue, message: error.message)
    }
}
