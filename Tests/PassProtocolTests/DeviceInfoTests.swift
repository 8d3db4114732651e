import Foundation
import Testing

@testable import PassProtocol

struct DeviceInfoTests {
    static func iPhone() -> DeviceInfo {
        var info = DeviceInfo(model: "iPhone15,2", osName: "iOS")
        info.primaryHardwareType = "MobilePhone"
        info.manufacturer = "Apple"
        info.osVersion = "17.4"
        info.displayWidth = 1179
        info.connectionSecure = true
        return info
    }

    @Test func base64RoundTrip() throws {
        let info = Self.iPhone()
        #expect(try DeviceInfo.decode(base64: info.base64Encoded()) == info)
    }

    @Test func encodesTheDocumentedKeysAndOmitsUnsetOnes() throws {
        let json = try #require(Data(base64Encoded: Self.iPhone().base64Encoded()))
        #expect(
            String(decoding: json, as: UTF8.self)
                == #"{"connectionSecure":true,"displayWidth":1179,"manufacturer":"Apple","model":"iPhone15,2","#
                + #""osName":"iOS","osVersion":"17.4","primaryHardwareType":"MobilePhone"}"#
        )
    }

    @Test func decodesURLEncodedUnpaddedAndFormMangledValues() throws {
        var info = Self.iPhone()
        info.applicationId = "x>>?"  // makes the Base64 contain "+" and "=" padding
        let base64 = info.base64Encoded()
        #expect(base64.contains("+") && base64.hasSuffix("="))
        let urlEncoded = try #require(base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        #expect(urlEncoded.contains("%"))
        #expect(try DeviceInfo.decode(base64: urlEncoded) == info)
        #expect(try DeviceInfo.decode(base64: base64.replacingOccurrences(of: "=", with: "")) == info)
        #expect(try DeviceInfo.decode(base64: base64.replacingOccurrences(of: "+", with: " ")) == info)
    }

    @Test func acceptsNumbersAsStringsAndTheReverse() throws {
        let json = #"{"model":"iPad","osName":"iOS","displayWidth":"1024","osVersion":17,"connectionSecure":"true"}"#
        let info = try DeviceInfo.decode(base64: Data(json.utf8).base64EncodedString())
        #expect(info.displayWidth == 1024)
        #expect(info.osVersion == "17")
        #expect(info.connectionSecure == true)
    }

    @Test func validateReportsMissingMandatoryKeysAndUnknownHardware() {
        #expect(Self.iPhone().validate().isEmpty)
        var info = DeviceInfo(model: nil, osName: "")
        info.primaryHardwareType = "Toaster"
        #expect(
            info.validate() == [
                "model is missing (it is mandatory)",
                "osName is missing (it is mandatory)",
                "primaryHardwareType \"Toaster\" is not one of the documented values",
            ]
        )
    }

    @Test func notBase64OrNotJSONIsAPayloadError() {
        #expect(throws: PayloadFormatError("device_info is not Base64")) { try DeviceInfo.decode(base64: "a") }
        #expect(throws: PayloadFormatError.self) {
            try DeviceInfo.decode(base64: Data("[1,2]".utf8).base64EncodedString())
        }
    }
}
