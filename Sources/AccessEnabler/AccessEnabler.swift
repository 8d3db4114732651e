/// AccessEnabler: the SDK core.
