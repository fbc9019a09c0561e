import SubLedgerCore
import SubLedgerReports
import SubLedgerUseCases

/// Every code the HTTP API can answer with, by where it comes from: the HTTP layer's own (`APIError.Code`) and
/// the codes of each typed error `ErrorMiddleware` turns into an answer (`HTTPErrorMapping`). docs/reference/errors.md
/// is held against this list both ways (`ErrorCatalogTests`); a typed error newly mapped in `ErrorMiddleware`
/// belongs here too.
enum ErrorCatalog {
    /// Each source of codes, with the codes it can give.
    static var sources: [(source: String, codes: [String])] {
        [
            ("APIError.Code", APIError.Code.allCases.map(\.rawValue)),
            // `AppleGatewayError` is answered as the `IngestionError` it becomes.
            ("IngestionError", IngestionError.Code.allCases.map(\.rawValue)),
            ("SupportError", SupportError.Code.allCases.map(\.rawValue)),
            ("OfferError", OfferError.Code.allCases.map(\.rawValue)),
            ("ReportError", ReportError.Code.allCases.map(\.rawValue)),
            ("ConsumptionInputError", ConsumptionInputError.Code.allCases.map(\.description)),
            ("WebhookAdminError", WebhookAdminError.Code.allCases.map(\.rawValue)),
            ("GrantError", GrantError.Code.allCases.map(\.rawValue)),
            ("MergeError", MergeError.Code.allCases.map(\.rawValue)),
            ("ErasureError", ErasureError.Code.allCases.map(\.rawValue)),
            (
                "APIKeyError",
                [
                    APIKeyError.invalidKeyName, .invalidKeyID, .unknownApp(bundleID: ""), .appKeyRequired,
                    .keyAppRemoved, .appNamedWrongly,
                ].map(\.code)
            ),
        ]
    }

    /// The codes, each once.
    static var codes: Set<String> { Set(sources.flatMap(\.codes)) }
}
