import AppStore
import Foundation

/// Checks a Send Consumption Information body as Apple documents it: the required fields, their types and
/// allowed values; answers Apple's error (`errorCode`, `errorMessage`) for the first defect, or `nil`.
enum ConsumptionInformationValidation {
    /// A refusal: Apple's error code and message.
    struct Refusal: Error {
        var code: Int
        var message: String
    }

    /// The V2 `ConsumptionRequest`; `autoRenewable`: the transaction is of an auto-renewable subscription, for
    /// which Apple computes a prorated refund itself and refuses a `consumptionPercentage` with `GRANT_PRORATED`.
    static func v2(_ object: [String: ReceivedJSONValue], autoRenewable: Bool = false) -> Refusal? {
        guard object["customerConsented"]?.bool == true else {
            return Refusal(code: 4_000_035, message: "Invalid customer consented, the customer must consent.")
        }
        guard object["sampleContentProvided"]?.bool != nil else {
            return Refusal(code: 4_000_041, message: "Invalid sample content provided.")
        }
        guard let delivery = object["deliveryStatus"]?.string, ConsumptionRequest.deliveryStatuses.contains(delivery)
        else {
            return Refusal(code: 4_000_036, message: "Invalid delivery status.")
        }
        if let raw = object["consumptionPercentage"] {
            guard let percentage = raw.integer, (0...100_000).contains(percentage) else {
                return Refusal(code: 4_000_000, message: "Invalid consumption percentage.")
            }
            if delivery != "DELIVERED", percentage != 0 {
                return Refusal(
                    code: 4_000_000,
                    message: "The consumption percentage must be 0 when the purchase was not delivered.")
            }
        }
        if let raw = object["refundPreference"] {
            guard let preference = raw.string, ConsumptionRequest.refundPreferences.contains(preference) else {
                return Refusal(code: 4_000_000, message: "Invalid refund preference.")
            }
            if preference == "GRANT_PRORATED", autoRenewable, object["consumptionPercentage"] != nil {
                return Refusal(
                    code: 4_000_000,
                    message:
                        "A consumption percentage is not allowed with GRANT_PRORATED for an auto-renewable subscription."
                )
            }
        }
        return nil
    }

    /// The V1 `ConsumptionRequestV1`: every field required, integer buckets within Apple's ranges.
    static func v1(_ object: [String: ReceivedJSONValue]) -> Refusal? {
        guard object["customerConsented"]?.bool == true else {
            return Refusal(code: 4_000_035, message: "Invalid customer consented, the customer must consent.")
        }
        let ranges: [(String, ClosedRange<Int>, Int)] = [
            ("accountTenure", 0...7, 4_000_032), ("consumptionStatus", 0...3, 4_000_034),
            ("deliveryStatus", 0...5, 4_000_036), ("lifetimeDollarsPurchased", 0...7, 4_000_037),
            ("lifetimeDollarsRefunded", 0...7, 4_000_038), ("platform", 0...2, 4_000_039),
            ("playTime", 0...7, 4_000_040),
            ("refundPreference", 0...3, 4_000_000), ("userStatus", 0...4, 4_000_042),
        ]
        for (name, range, code) in ranges {
            guard let value = object[name]?.integer, range.contains(value) else {
                return Refusal(code: code, message: "Invalid \(name).")
            }
        }
        guard object["sampleContentProvided"]?.bool != nil else {
            return Refusal(code: 4_000_041, message: "Invalid sample content provided.")
        }
        guard let token = object["appAccountToken"]?.string, token.isEmpty || UUID(uuidString: token) != nil else {
            return Refusal(code: 4_000_033, message: "Invalid app account token.")
        }
        return nil
    }
}
