import Foundation

/// The control API's JSON: snake_case keys (`package_name`, `purchase_token`), Google's own spelling in Swift
/// (`packageName`, `productId`).
public enum ControlJSON {
    /// An encoder writing the control API's JSON.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A decoder reading the control API's JSON.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
