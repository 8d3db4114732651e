import Foundation
import FuzzDriver
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

runLibFuzzer(fuzzTokenXML)
