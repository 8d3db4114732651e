import Testing
@testable import AccessEnabler

/// The authentication flow's decisions and transitions, without I/O (seed 002 steps 1–9, cancel, logout).
struct AuthenticationStateMachineTests {
    typealias Request = AuthenticationStateMachine.Request
    static let fresh = Request(validMvpd: nil, forced: false, preselected: nil, cachedMvpd: nil, platformPicker: false, hasProviders: true)

    @Test func aValidTokenAnswersAtOnceUnlessForced() {
        var machine = AuthenticationStateMachine()
        var request = Self.fresh
        request.validMvpd = "Dish"
        #expect(machine.getAuthentication(request).action == .alreadyAuthenticated(mvpd: "Dish"))
        #expect(machine.state == .idle)
        request.forced = true
        #expect(machine.getAuthentication(request).action == .showPicker)
        #expect(machine.state == .pickingProvider)
    }

    @Test func theAppsChoiceThenTheCachedMvpdSkipThePicker() {
        var machine = AuthenticationStateMachine()
        var request = Self.fresh
        request.cachedMvpd = "Cablevision"
        #expect(machine.getAuthentication(request).action == .login(mvpd: "Cablevision"))
        request.preselected = "Dish"
        #expect(machine.getAuthentication(request).action == .login(mvpd: "Dish"))
    }

    @Test func thePickerLoginRedirectAndTokenFollowEachOther() {
        var machine = AuthenticationStateMachine()
        #expect(machine.getAuthentication(Self.fresh).action == .showPicker)
        #expect(machine.providerSelected("Dish") == .login(mvpd: "Dish"))
        machine.loginPageOpened(mvpd: "Dish", passive: false)
        #expect(machine.description == "awaitingLogin(Dish)")
        #expect(machine.redirectReceived(error: nil) == .fetchToken(mvpd: "Dish"))
        #expect(machine.state == .fetchingToken(mvpd: "Dish"))
        machine.finished()
        #expect(machine.state == .idle)
        // A second redirect for the same login is ignored
        #expect(machine.redirectReceived(error: nil) == .ignored(state: "idle"))
    }

    @Test func choosingWithoutAPickerIsRememberedAndNilCancels() {
        let machine = AuthenticationStateMachine()
        #expect(machine.providerSelected("Dish") == .remember(mvpd: "Dish"))
        #expect(machine.providerSelected(nil) == .cancel)
    }

    @Test func aLoginPageEndingInAnErrorAsksForCancel() {
        var machine = AuthenticationStateMachine()
        machine.loginPageOpened(mvpd: "Dish", passive: false)
        #expect(machine.redirectReceived(error: "user_cancelled") == .loginFailed(error: "user_cancelled"))
    }

    @Test func aNewGetAuthenticationInterruptsAnUnfinishedLogin() {
        var machine = AuthenticationStateMachine()
        machine.codeShown(mvpd: "Dish", code: "ABC123")
        #expect(machine.isPolling(mvpd: "Dish", code: "ABC123"))
        let (action, interrupted) = machine.getAuthentication(Self.fresh)
        #expect(interrupted == .polling(mvpd: "Dish", code: "ABC123"))
        #expect(action == .showPicker)
    }

    @Test func noProvidersAndThePlatformPicker() {
        var machine = AuthenticationStateMachine()
        var request = Self.fresh
        request.hasProviders = false
        #expect(machine.getAuthentication(request).action == .noProviders)
        #expect(machine.state == .idle)
        request.platformPicker = true
        #expect(machine.getAuthentication(request).action == .platformSignIn)
        #expect(machine.state == .pickingProvider)
    }

    @Test func logoutEndsAtTheRedirectAndPassiveLoginsEndQuietly() {
        var machine = AuthenticationStateMachine()
        machine.logoutStarted()
        #expect(machine.redirectReceived(error: nil) == .logoutFinished)
        #expect(machine.state == .idle)
        machine.loginPageOpened(mvpd: "Cablevision", passive: true)
        machine.passiveLoginEnded()
        #expect(machine.state == .idle)
        machine.loginPageOpened(mvpd: "Dish", passive: false)
        machine.passiveLoginEnded()
        #expect(machine.state == .awaitingLogin(mvpd: "Dish", passive: false))
    }
}
