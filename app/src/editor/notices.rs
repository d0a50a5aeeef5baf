//! The one home of the messages that tell the user why something they asked for did not happen:
//! a refused edit or setting, a file that would not open or save. Whatever refuses writes here;
//! the panels read from here. Each message has the place it is shown in, so a refused Settings
//! value is said beside the Settings panel and a refused Inspector value under the Inspector,
//! while failures that belong to no panel go to the error window.

/// Where a message is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticePlace {
    /// The dismissable error window (a file that failed to load or save, an edit refused from
    /// the viewport, a menu or a shortcut).
    ErrorWindow,
    /// Below the Settings panel's fields (a refused step setting).
    Settings,
    /// Below the Inspector's fields (a refused property value).
    Inspector,
}

/// How many places there are (the length of [`Notices`]'s table).
const PLACES: usize = 3;

/// Every place's current message; each place shows at most one, the latest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notices {
    /// Indexed by [`NoticePlace`] (its discriminant).
    messages: [Option<String>; PLACES],
}

impl Notices {
    /// Shows `message` in `place`, in place of what it showed before. The message is the text
    /// the place shows, as written by whoever refused.
    pub fn report(&mut self, place: NoticePlace, message: impl Into<String>) {
        self.messages[place as usize] = Some(message.into());
    }

    /// Takes the message of `place` away (the user dismissed it, or a later attempt succeeded).
    pub fn clear(&mut self, place: NoticePlace) {
        self.messages[place as usize] = None;
    }

    /// The message shown in `place`, if any.
    pub fn message(&self, place: NoticePlace) -> Option<&str> {
        self.messages[place as usize].as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_place_keeps_its_own_latest_message() {
        let mut notices = Notices::default();
        notices.report(NoticePlace::Settings, "refused: invalid dt");
        notices.report(NoticePlace::ErrorWindow, "could not save");
        notices.report(NoticePlace::ErrorWindow, "could not open");
        assert_eq!(notices.message(NoticePlace::Settings), Some("refused: invalid dt"));
        assert_eq!(notices.message(NoticePlace::ErrorWindow), Some("could not open"));
        notices.clear(NoticePlace::Settings);
        assert_eq!(notices.message(NoticePlace::Settings), None);
        assert_eq!(notices.message(NoticePlace::Inspector), None);
    }
}
