import Foundation
import PassProtocol

/// Where `setRequestor` gets a Programmer's configuration: the seeds' `config` call (``SDKClient``) or REST API
/// v2's (``V2Client``, which registers the app first). `fetchConfigurations`, `merge` and `configurationError` are
/// the same for both.
protocol ConfigurationSource: Sendable {
    /// The service provider as `setRequestor` named it (`…/adobe-services`): each MVPD's later calls go to the one it
    /// came from.
    var base: URL { get }
    /// The requestor's configuration.
    nonisolated(nonsending) func configuration(requestorID: String) async throws(SDKClient.Failure) -> RequestorConfiguration
}

extension SDKClient: ConfigurationSource {}
