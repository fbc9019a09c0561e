extension VerifyReceiptFailure {
    /// The failure in words for people (a client's error message, an import row's): Apple's status and what
    /// Apple documents it to mean, or what went wrong on the way. Never the receipt or the secret.
    public var explanation: String {
        if code == .appleStatus, let appleStatus {
            return "status \(appleStatus) in \(environment.rawValue): \(Self.meaning(ofStatus: appleStatus))"
        }
        if code == .httpStatus, let httpStatus {
            return "HTTP \(httpStatus) from \(environment.rawValue)'s verifyReceipt"
        }
        let what: String =
            switch code {
            case .malformedResponse: "verifyReceipt answered something that is not its JSON"
            case .malformedRequest: "the request to verifyReceipt could not be encoded"
            case .timeout: "verifyReceipt did not answer in time"
            case .connectionError: "verifyReceipt could not be reached"
            case .bundleMismatch: "the verified receipt belongs to another app"
            case .unmappableReceipt: "the verified receipt lacks what SubLedger needs"
            case .impossibleValue: "the answer holds a value Apple never sends"
            case .environmentLoop: "production and sandbox each sent the receipt to the other"
            default: "the receipt could not be verified"
            }
        return "\(what) (\(environment.rawValue))"
    }

    /// What Apple documents a verifyReceipt `status` to mean.
    static func meaning(ofStatus status: Int) -> String {
        switch status {
        case 21000: "the request to the App Store was not made with HTTP POST or was malformed"
        case 21002: "the receipt data is malformed or missing"
        case 21003: "the receipt could not be authenticated"
        case 21004: "the shared secret does not match the app's"
        case 21005: "the receipt server was temporarily unable to provide the receipt"
        case 21006: "the receipt is valid but its subscription has expired"
        case 21007: "the receipt is from the sandbox but was sent to production"
        case 21008: "the receipt is from production but was sent to the sandbox"
        case 21009: "Apple had an internal data access error"
        case 21010: "the user account cannot be found or has been deleted"
        case 21100...21199: "Apple had an internal data access error"
        default: "a status Apple does not document"
        }
    }
}
