// The event model an app sees with `import AccessEnabler` alone: the callbacks (`EntitlementCallback`), MVPDs, tracking
// events, the app's identity and the event stream (`EntitlementEvent`). They are defined once, in PassEvents, which the
// backend, the history and the console import without linking the SDK.
@_exported import PassEvents
