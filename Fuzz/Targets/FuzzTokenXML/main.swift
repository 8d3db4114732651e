import Foundation
@testable import PassProtocol

/// The token and SDK XML parsers: signed tokens (raw and Base64), token bodies, REST errors, requestor
/// configurations, preauthorization answers, token dates.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: Data(bytes: data, count: size), as: UTF8.self)
    _ = try? XMLNode.parse(text)
    if let token = try? SignedToken<AuthNToken>.parse(text) { _ = token.body.expires; _ = token.serialized }
    if let token = try? SignedToken<AuthZToken>.parse(text) { _ = token.body.expires; _ = token.serialized }
    if let token = try? SignedToken<MediaToken>.parse(text) { _ = token.body.expires; _ = token.serialized }
    _ = try? SignedToken<AuthNToken>.parse(base64: text)
    _ = try? AuthNToken.parse(body: text)
    _ = try? AuthZToken.parse(body: text)
    _ = try? MediaToken.parse(body: text)
    _ = try? RESTError.parse(xml: text)
    _ = try? RequestorConfiguration.parse(xml: text)
    _ = try? PreauthorizationResponse.parse(xml: text)
    _ = try? SDKResponses.parseAuthnAnswer(text)
    _ = SDKResponses.parseError(text)
    if let date = TokenDate.parse(text) { _ = TokenDate.format(date); _ = EpochMilliseconds.from(date) }
    _ = EpochMilliseconds.date(text).map(EpochMilliseconds.from)
    return 0
}

// SwiftPM links an executable target's entry point under its own name, so libFuzzer's `main` is not used: the top
// level starts libFuzzer's driver with the command line.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var fuzzerArgc = CommandLine.argc
var fuzzerArgv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&fuzzerArgc, &fuzzerArgv, fuzzTokenXML))
