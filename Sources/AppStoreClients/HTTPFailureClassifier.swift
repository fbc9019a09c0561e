import AsyncHTTPClient
import NIOCore

/// Sorts transport failures from AsyncHTTPClient into timeouts and everything else.
enum HTTPFailureClassifier {
    /// Whether the error means the deadline, connect, read or write timeout passed.
    static func isTimeout(_ error: any Error) -> Bool {
        if let httpError = error as? HTTPClientError {
            return httpError == .deadlineExceeded || httpError == .readTimeout || httpError == .connectTimeout
                || httpError == .writeTimeout
        }
        if let channelError = error as? ChannelError {
            if case .connectTimeout = channelError { return true }
        }
        return false
    }
}
