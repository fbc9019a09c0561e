import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

@Suite("Webhook URL policy")
struct WebhookURLPolicyTests {
    @Test(arguments: [
        "https://hooks.example.com/subledger", "https://hooks.example.com:8443/a?b=c", "http://127.0.0.1:9000/hook",
        "http://localhost:9000/", "http://[::1]:9000/hook", "https://93.184.216.34/hook",
    ])
    func publicHTTPSAndLoopbackHTTPAreAccepted(url: String) throws {
        _ = try WebhookURLPolicy.check(url, allowPrivateNetwork: false)
    }

    @Test(arguments: [
        ("http://hooks.example.com/", WebhookURLError.Code.insecureURL),
        ("ftp://hooks.example.com/", .invalidURL),
        ("hooks.example.com/path", .invalidURL),
        ("https://user:pw@hooks.example.com/", .invalidURL),
        ("https://hooks.example.com/#frag", .invalidURL),
        ("https://hooks.example.com/a b", .invalidURL),
        ("https://hooks.example.com/\u{0}", .invalidURL),
        ("https://hooks.example.com:0/", .invalidURL),
        ("", .invalidURL),
        ("https://10.1.2.3/hook", .privateAddress),
        ("https://192.168.0.10/hook", .privateAddress),
        ("https://172.20.0.1/hook", .privateAddress),
        ("https://169.254.169.254/latest/meta-data", .privateAddress),
        ("https://100.64.0.1/", .privateAddress),
        ("https://[fd00::1]/", .privateAddress),
        ("https://[fe80::1]/", .privateAddress),
        ("https://[::ffff:10.0.0.1]/", .privateAddress),
        ("https://127.0.0.1/", .privateAddress),
        ("https://localhost/", .privateAddress),
        ("https://0.0.0.0/", .privateAddress),
        ("https://224.0.0.1/", .privateAddress),
    ])
    func refusedURLsSayWhy(url: String, code: WebhookURLError.Code) {
        do {
            _ = try WebhookURLPolicy.check(url, allowPrivateNetwork: false)
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.code == code, "\(url): \(error)")
        }
    }

    @Test func theExplicitFlagAllowsPrivateAddressesButNotInsecureOnes() throws {
        _ = try WebhookURLPolicy.check("https://10.1.2.3/hook", allowPrivateNetwork: true)
        _ = try WebhookURLPolicy.check("https://localhost:8443/", allowPrivateNetwork: true)
        #expect(throws: WebhookURLError.self) {
            try WebhookURLPolicy.check("http://10.1.2.3/", allowPrivateNetwork: true)
        }
        #expect(throws: WebhookURLError.self) {
            try WebhookURLPolicy.check("https://0.0.0.0/", allowPrivateNetwork: true)
        }
    }

    @Test func overlongURLsAreRefused() {
        let url = "https://hooks.example.com/" + String(repeating: "a", count: 2048)
        #expect(throws: WebhookURLError.self) { try WebhookURLPolicy.check(url, allowPrivateNetwork: false) }
    }

    @Test func resolvedAddressesAreJudgedLikeLiterals() throws {
        try WebhookURLPolicy.check(address: #require(.init("8.8.8.8")), allowPrivateNetwork: false)
        #expect(throws: WebhookURLError.self) {
            try WebhookURLPolicy.check(address: #require(.init("10.0.0.8")), allowPrivateNetwork: false)
        }
        #expect(try #require(WebhookURLPolicy.IPAddress("::ffff:127.0.0.1")).isLoopback)
    }
}
