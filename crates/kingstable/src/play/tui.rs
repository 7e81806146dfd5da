//! The full-screen game: the board in colour with coordinates, a side panel (players,
//! clocks, last move, captures, the AI's thinking, the moves), a message line, an input
//! line for typed moves and commands, and a cursor to pick pieces with the arrow keys.
//! Fits 80x24.

use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use anyhow::Result;
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use game::{Outcome, Player};
use ratatui::DefaultTerminal;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::ai::{AiEvent, AiSetup, AiWorker, Purpose};
use super::board::{Mark, PlayGame, Sq};
use super::input::{self, COMMANDS, Input};
use super::session::{AiUpdate, Submitted, TerminalGame, describe_outcome, result_text};
use super::text::{cell_char, view_order};
use games::PieceKind;
use session::{Timestamp, format_clock};

/// The keys, as the footer and the help show them.
const KEYS: &[(&str, &str)] = &[
    ("arrows", "move the cursor"),
    (
        "Enter",
        "select a piece / its destination, or play what is typed",
    ),
    ("Esc", "clear the selection, the choice or the input"),
    ("Ctrl-U", "undo"),
    ("Ctrl-T", "hint"),
    ("Ctrl-F", "flip the board"),
    ("Ctrl-S", "save the game"),
    ("Ctrl-X", "make the AI move now"),
    ("F1", "this help"),
    ("Ctrl-C", "quit"),
];

/// The board's colours (xterm's 256-colour palette).
mod colour {
    /// A light plain square.
    pub const LIGHT: u8 = 180;
    /// A dark plain square.
    pub const DARK: u8 = 137;
    /// Tafl: the throne and the corners.
    pub const SPECIAL: u8 = 131;
    /// Camelot: the castles.
    pub const CASTLE: u8 = 67;
    /// The squares of the last move: a magenta found nowhere else on the board.
    pub const LAST_MOVE: u8 = 201;
    /// The AI's hint.
    pub const HINT: u8 = 140;
    /// Where the selected piece can go.
    pub const TARGET: u8 = 71;
    /// The selected piece.
    pub const SELECTED: u8 = 33;
}

/// The narrowest side panel (players, clocks, last move, legend) the screen is drawn with.
const SIDE_MIN_WIDTH: u16 = 30;

/// What the screen shows besides the game.
struct App<G: PlayGame> {
    session: TerminalGame,
    worker: AiWorker<G>,
    ai_events: Receiver<AiEvent>,
    input: String,
    cursor: Sq,
    selected: Option<Sq>,
    flipped: bool,
    message: Option<(String, bool)>,
    help: bool,
    quit: bool,
    /// The session's revision when last saved (or started).
    saved_revision: u64,
    /// Whether the player was told the game is unsaved and a second quit will lose it.
    quit_warned: bool,
    announced: Option<Outcome>,
}

/// Plays `session` full-screen until the player quits.
pub fn run<G: PlayGame>(session: TerminalGame, ai: AiSetup, human: Player) -> Result<()> {
    let (tx, ai_events) = mpsc::channel();
    let worker = AiWorker::<G>::spawn(ai, move |event| {
        let _ = tx.send(event);
    });
    let (files, ranks) = (session.game().files(), session.game().ranks());
    let centre = Sq::new(files / 2, ranks / 2);
    let mut app = App {
        session,
        worker,
        ai_events,
        input: String::new(),
        cursor: centre,
        selected: None,
        // Camelot's second player sits at the top unless the board is turned.
        flipped: human == Player::Second && files != ranks,
        message: Some((
            "Type a move and Enter, or pick a piece with the arrows and Enter. F1: help".to_owned(),
            false,
        )),
        help: false,
        quit: false,
        saved_revision: 0,
        quit_warned: false,
        announced: None,
    };
    app.saved_revision = app.session.revision();
    let mut terminal = ratatui::init();
    let result = app.main_loop(&mut terminal);
    ratatui::restore();
    app.session.cancel_thinking();
    result
}

impl<G: PlayGame> App<G> {
    fn main_loop(&mut self, terminal: &mut DefaultTerminal) -> Result<()> {
        while !self.quit {
            let now = Timestamp::now();
            if let Some(request) = self.session.next_ai_request(now) {
                self.worker.submit(request);
            }
            self.session.tick(now);
            while let Ok(event) = self.ai_events.try_recv() {
                self.on_ai_event(event);
            }
            self.announce();
            terminal.draw(|frame| self.draw(frame))?;
            if event::poll(Duration::from_millis(100))? {
                match event::read()? {
                    Event::Key(key) if key.kind != KeyEventKind::Release => self.on_key(key),
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Quits, unless that would lose moves not saved: then warns once first.
    fn request_quit(&mut self) {
        let unsaved = self.session.revision() != self.saved_revision;
        if unsaved && !self.quit_warned {
            self.quit_warned = true;
            self.complain("The game is not saved: Ctrl-S saves it, Ctrl-C again quits anyway");
        } else {
            self.quit = true;
        }
    }

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), false));
    }

    fn complain(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), true));
    }

    fn on_ai_event(&mut self, event: AiEvent) {
        match self.session.on_ai_event(event, Timestamp::now()) {
            AiUpdate::Played(text) => {
                self.selected = None;
                self.say(format!("AI played {text}"));
            }
            AiUpdate::Hint(text) => self.say(format!("Hint: {text}")),
            AiUpdate::Progress | AiUpdate::Ignored => {}
        }
    }

    fn announce(&mut self) {
        let outcome = self.session.outcome();
        if outcome != self.announced {
            self.announced = outcome;
            if let Some(outcome) = outcome {
                let words = describe_outcome(self.session.kind(), outcome, self.session.to_move());
                self.say(format!("Game over: {words}"));
                self.selected = None;
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        if self.help {
            self.help = false;
            return;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c' | 'q') if ctrl => self.request_quit(),
            KeyCode::Char('u') if ctrl => self.run_input(Input::Undo),
            KeyCode::Char('t') if ctrl => self.run_input(Input::Hint),
            KeyCode::Char('f') if ctrl => self.run_input(Input::Flip),
            KeyCode::Char('s') if ctrl => self.run_input(Input::Save(None)),
            KeyCode::Char('x') if ctrl => self.run_input(Input::Stop),
            KeyCode::F(1) => self.help = true,
            KeyCode::Esc => {
                if !self.input.is_empty() {
                    self.input.clear();
                } else if self.session.choice().is_some() {
                    self.session.cancel_choice();
                } else {
                    self.selected = None;
                }
            }
            KeyCode::Backspace => {
                self.input.pop();
            }
            KeyCode::Enter => {
                if self.input.trim().is_empty() {
                    self.input.clear();
                    self.press_on_cursor();
                } else {
                    let line = std::mem::take(&mut self.input);
                    match input::parse(&line) {
                        Ok(parsed) => self.run_input(parsed),
                        Err(why) => self.complain(why),
                    }
                }
            }
            KeyCode::Up => self.move_cursor(0, 1),
            KeyCode::Down => self.move_cursor(0, -1),
            KeyCode::Left => self.move_cursor(-1, 0),
            KeyCode::Right => self.move_cursor(1, 0),
            KeyCode::Char(c) if !ctrl && !c.is_control() && self.input.chars().count() < 60 => {
                self.input.push(c);
            }
            _ => {}
        }
    }

    /// Moves the cursor one square on the screen, skipping squares off the board.
    fn move_cursor(&mut self, dx: i8, dy: i8) {
        let (dx, dy) = if self.flipped { (-dx, -dy) } else { (dx, dy) };
        let (mut file, mut rank) = (self.cursor.file as i8, self.cursor.rank as i8);
        loop {
            file += dx;
            rank += dy;
            let game = self.session.game();
            if file < 0 || rank < 0 || file >= game.files() as i8 || rank >= game.ranks() as i8 {
                return;
            }
            let sq = Sq::new(file as u8, rank as u8);
            if game.exists(sq) {
                self.cursor = sq;
                return;
            }
        }
    }

    /// Enter on the board: select a piece, play to a highlighted square, or deselect.
    fn press_on_cursor(&mut self) {
        if !self.session.human_to_move() {
            if self.session.outcome().is_some() {
                self.complain("The game is over: Ctrl-U takes moves back");
            } else {
                self.complain("The AI is thinking (Ctrl-X makes it move now)");
            }
            return;
        }
        let cursor = self.cursor;
        let name = self.session.game().square_name(cursor);
        match self.selected {
            Some(from) if from == cursor => self.selected = None,
            Some(from) if self.session.destinations(from).contains(&cursor) => {
                self.selected = None;
                match self.session.submit_squares(from, cursor, Timestamp::now()) {
                    Ok(result) => self.after_submit(result),
                    Err(why) => self.complain(why),
                }
            }
            _ if !self.session.destinations(cursor).is_empty() => {
                self.selected = Some(cursor);
                self.say(format!("{name} selected: Enter on a green square moves it"));
            }
            Some(from) => {
                let from = self.session.game().square_name(from);
                self.complain(format!("{from} cannot go to {name}"));
            }
            None => self.complain(format!("No move from {name}")),
        }
    }

    fn after_submit(&mut self, result: Submitted) {
        self.selected = None;
        match result {
            Submitted::Played(text) => self.say(format!("You played {text}")),
            Submitted::Choose => {
                self.say("Several moves match: type the number of the one you mean, then Enter")
            }
        }
    }

    fn run_input(&mut self, input: Input) {
        let now = Timestamp::now();
        match input {
            Input::Empty => {}
            Input::Move(text) => match self.session.submit(&text, now) {
                Ok(result) => self.after_submit(result),
                Err(why) => self.complain(why),
            },
            Input::Pick(n) => match self.session.pick(n, now) {
                Ok(text) => self.say(format!("You played {text}")),
                Err(why) => self.complain(why),
            },
            Input::Undo => match self.session.undo(now) {
                Ok(n) => {
                    self.selected = None;
                    self.say(format!(
                        "Took back {n} move{}",
                        if n == 1 { "" } else { "s" }
                    ));
                }
                Err(why) => self.complain(why),
            },
            Input::Hint => match self.session.request_hint(now) {
                Ok(request) => {
                    self.worker.submit(request);
                    self.say("Looking for a hint…");
                }
                Err(why) => self.complain(why),
            },
            Input::Flip => self.flipped = !self.flipped,
            Input::Save(path) => match self.session.save(path.as_deref(), now) {
                Ok(path) => {
                    self.saved_revision = self.session.revision();
                    self.say(format!("Saved to {}", path.display()));
                }
                Err(why) => self.complain(format!("{why:#}")),
            },
            Input::Load(path) => match self.session.load(&path, now) {
                Ok(n) => {
                    self.selected = None;
                    self.say(format!("Loaded {} ({n} moves)", path.display()));
                }
                Err(why) => self.complain(format!("{why:#}")),
            },
            Input::Stop => {
                if !self.session.stop_thinking() {
                    self.complain("The AI is not thinking");
                }
            }
            Input::Resign => {
                if let Err(why) = self.session.resign(now) {
                    self.complain(why);
                }
            }
            Input::Board => self.selected = None,
            Input::Help => self.help = true,
            Input::Quit => self.request_quit(),
        }
    }

    // ---- Drawing ----

    /// The smallest terminal the board, the side panel and the lines below fit in.
    fn min_size(&self) -> (u16, u16) {
        let width = self.board_width() + SIDE_MIN_WIDTH;
        // Title, the board between its two lines of file letters, message, input, footer.
        let height = 1 + u16::from(self.session.game().ranks()) + 2 + 3;
        (width, height)
    }

    /// The board's width with its rank numbers.
    fn board_width(&self) -> u16 {
        4 + 3 * u16::from(self.session.game().files()) + 5
    }

    fn draw(&self, frame: &mut Frame) {
        let area = frame.area();
        let (min_width, min_height) = self.min_size();
        if area.width < min_width || area.height < min_height {
            let text = format!(
                "The {} board needs a terminal of at least {min_width}x{min_height}; this one is {}x{}. \
                 Enlarge it, or play with --plain. Ctrl-C quits.",
                self.session.kind(),
                area.width,
                area.height
            );
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
            return;
        }
        let [title, main, message, input, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        let [board, side] =
            Layout::horizontal([Constraint::Length(self.board_width()), Constraint::Min(0)])
                .areas(main);
        frame.render_widget(
            Paragraph::new(self.title_text()).style(Style::new().add_modifier(Modifier::REVERSED)),
            title,
        );
        frame.render_widget(Paragraph::new(self.board_lines()), board);
        frame.render_widget(
            Paragraph::new(self.side_lines(side.height as usize, side.width as usize))
                .wrap(Wrap { trim: false }),
            side,
        );
        if let Some((text, error)) = &self.message {
            let colour = if *error {
                Color::LightRed
            } else {
                Color::LightGreen
            };
            frame.render_widget(
                Paragraph::new(text.as_str()).style(Style::new().fg(colour)),
                message,
            );
        }
        frame.render_widget(Paragraph::new(self.input_line()), input);
        frame.render_widget(
            Paragraph::new(
                "Enter:select/play arrows:cursor ^U:undo ^T:hint ^F:flip ^S:save ^X:stop F1 ^C",
            )
            .style(Style::new().fg(Color::DarkGray)),
            footer,
        );
        if self.help {
            self.draw_help(frame, area);
        }
    }

    fn title_text(&self) -> String {
        let s = &self.session;
        format!(
            " Kingstable · {} · {} vs {}",
            s.kind(),
            s.side_label(Player::First),
            s.side_label(Player::Second)
        )
    }

    fn board_lines(&self) -> Vec<Line<'static>> {
        let game = self.session.game();
        let (files, ranks) = view_order(game, self.flipped);
        let file_letter = |f: u8| {
            (0..game.ranks())
                .map(|r| Sq::new(f, r))
                .find(|&sq| game.exists(sq))
                .and_then(|sq| game.square_name(sq).chars().next())
                .unwrap_or(' ')
        };
        let header: String = std::iter::once("    ".to_owned())
            .chain(files.iter().map(|&f| format!(" {} ", file_letter(f))))
            .collect();
        let dim = Style::new().fg(Color::DarkGray);
        let mut lines = vec![Line::styled(header.clone(), dim)];
        let selected_targets = self
            .selected
            .map(|from| self.session.destinations(from))
            .unwrap_or_default();
        let last = self.session.moves().last().map(|ply| &ply.info);
        let hint = self.session.hint().map(|(mv, _)| {
            let info = game.move_info(*mv);
            (info.from, info.to)
        });
        for &rank in &ranks {
            let mut spans = vec![Span::styled(format!("{:>3} ", rank + 1), dim)];
            for &file in &files {
                let sq = Sq::new(file, rank);
                let cell = game.cell(sq);
                if !cell.exists {
                    spans.push(Span::raw("   "));
                    continue;
                }
                let light = (file + rank) % 2 == 1;
                let mut bg = Color::Indexed(match cell.mark {
                    Mark::Plain if light => colour::LIGHT,
                    Mark::Plain => colour::DARK,
                    Mark::Throne | Mark::Corner => colour::SPECIAL,
                    Mark::Castle(_) => colour::CASTLE,
                });
                let mut centre = cell_char(cell);
                let mut fg = match cell.piece {
                    Some((_, PieceKind::King)) => Color::Indexed(226),
                    Some((Player::First, _)) if game.files() == game.ranks() => Color::Indexed(16),
                    Some((Player::Second, _)) if game.files() == game.ranks() => {
                        Color::Indexed(231)
                    }
                    Some((Player::First, _)) => Color::Indexed(231),
                    Some((Player::Second, _)) => Color::Indexed(16),
                    None => Color::Indexed(239),
                };
                if let Some(ply) = last {
                    if ply.from == sq || ply.to == sq {
                        bg = Color::Indexed(colour::LAST_MOVE);
                    }
                    if ply.captures.contains(&sq) && cell.piece.is_none() {
                        centre = 'x';
                        fg = Color::Indexed(160);
                    }
                }
                if hint.is_some_and(|(f, t)| f == sq || t == sq) {
                    bg = Color::Indexed(colour::HINT);
                }
                if selected_targets.contains(&sq) {
                    bg = Color::Indexed(colour::TARGET);
                    if cell.piece.is_none() {
                        centre = '·';
                    }
                }
                if self.selected == Some(sq) {
                    bg = Color::Indexed(colour::SELECTED);
                }
                let (left, right) = if self.cursor == sq {
                    ('[', ']')
                } else {
                    (' ', ' ')
                };
                let mut style = Style::new().bg(bg).fg(fg);
                if cell.piece.is_some() {
                    style = style.add_modifier(Modifier::BOLD);
                }
                let frame_style = Style::new()
                    .bg(bg)
                    .fg(Color::Indexed(16))
                    .add_modifier(Modifier::BOLD);
                spans.push(Span::styled(left.to_string(), frame_style));
                spans.push(Span::styled(centre.to_string(), style));
                spans.push(Span::styled(right.to_string(), frame_style));
            }
            spans.push(Span::styled(format!(" {}", rank + 1), dim));
            lines.push(Line::from(spans));
        }
        lines.push(Line::styled(header, dim));
        lines
    }

    fn side_lines(&self, height: usize, width: usize) -> Vec<Line<'static>> {
        let s = &self.session;
        let kind = s.kind();
        let now = Timestamp::now();
        let to_move = s.to_move();
        let mut lines = Vec::new();
        let lost = s.pieces_lost();
        for player in Player::BOTH {
            let moving = s.outcome().is_none() && player == to_move;
            let running = s.clocks().and_then(|c| c.running_player()) == Some(player);
            let marker = if moving { "▶ " } else { "  " };
            let clock = s
                .clocks()
                .and_then(|c| c.remaining(player, now))
                .map(|left| {
                    let time = format_clock(left);
                    if running {
                        format!("  [{time}]")
                    } else {
                        format!("  {time}")
                    }
                })
                .unwrap_or_default();
            let style = if moving {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            lines.push(Line::styled(
                format!(
                    "{marker}{}{clock}  lost {}",
                    s.side_label(player),
                    lost[player.index()]
                ),
                style,
            ));
        }
        match s.outcome() {
            Some(outcome) => {
                let red = Style::new()
                    .fg(Color::LightYellow)
                    .add_modifier(Modifier::BOLD);
                lines.push(Line::styled(
                    format!("Result: {}", result_text(kind, outcome)),
                    red,
                ));
                lines.push(Line::raw(describe_outcome(kind, outcome, to_move)));
            }
            None => lines.push(Line::raw(format!(
                "Move {} · {} to move",
                s.moves().len() / 2 + 1,
                kind.side_name(to_move)
            ))),
        }
        if let Some(last) = s.moves().last().map(|ply| &ply.info) {
            let mut text = format!("Last: {}", last.text);
            if !last.captures.is_empty() {
                let game = self.session.game();
                let names: Vec<String> =
                    last.captures.iter().map(|&q| game.square_name(q)).collect();
                text.push_str(&format!(" (took {})", names.join(" ")));
            }
            lines.push(Line::raw(text));
        }
        if let Some(thinking) = s.thinking() {
            let spinner = ['|', '/', '-', '\\']
                [(now.saturating_duration_since(thinking.since).as_millis() / 150 % 4) as usize];
            let what = match thinking.purpose {
                Purpose::Move => "AI thinking",
                Purpose::Hint => "Finding a hint",
            };
            lines.push(Line::styled(
                format!(
                    "{what} {spinner} {:.1}s {}",
                    now.saturating_duration_since(thinking.since).as_secs_f32(),
                    thinking.progress.as_deref().unwrap_or("")
                ),
                Style::new().fg(Color::LightCyan),
            ));
        } else if let Some((_, hint)) = s.hint() {
            lines.push(Line::styled(
                format!("Hint: {hint}"),
                Style::new().fg(Color::LightMagenta),
            ));
        }
        if let Some(choice) = s.choice() {
            lines.push(Line::styled(
                format!("{}; type its number:", choice.prompt),
                Style::new().fg(Color::LightYellow),
            ));
            // One wrapped line, so long lists (a piece's every move) still fit.
            let options: Vec<String> = choice
                .options
                .iter()
                .enumerate()
                .map(|(i, (_, text))| format!("{})\u{a0}{text}", i + 1))
                .collect();
            lines.push(Line::raw(options.join("  ")));
        }
        lines.extend(self.legend_lines());
        // The rest of the panel lists the latest moves.
        let rows: usize = lines
            .iter()
            .map(|l| l.width().div_ceil(width.max(1)).max(1))
            .sum();
        let room = height.saturating_sub(rows + 1);
        if room > 0 && !s.moves().is_empty() {
            lines.push(Line::styled("Moves:", Style::new().fg(Color::DarkGray)));
            let rows: Vec<String> = s
                .moves()
                .chunks(2)
                .enumerate()
                .map(|(i, pair)| {
                    let texts: Vec<&str> = pair.iter().map(|p| p.info.text.as_str()).collect();
                    format!("{:>3}. {}", i + 1, texts.join("  "))
                })
                .collect();
            let skip = rows.len().saturating_sub(room.saturating_sub(1));
            lines.extend(rows.into_iter().skip(skip).map(Line::raw));
        }
        lines
    }

    /// What the letters and colours of the board mean.
    fn legend_lines(&self) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let (pieces, marks) = if self.session.kind().is_tafl() {
            (
                "X attacker  O defender  K king",
                "+ the throne and the corners",
            )
        } else {
            ("N/M white knight/man, n/m black", "+ the castles")
        };
        let swatch = |colour: u8, text: &'static str| {
            [
                Span::styled("  ", Style::new().bg(Color::Indexed(colour))),
                Span::styled(text, dim),
            ]
        };
        let mut colours = Vec::new();
        colours.extend(swatch(colour::LAST_MOVE, " last move "));
        colours.extend(swatch(colour::SELECTED, " selected "));
        let mut more = Vec::new();
        more.extend(swatch(colour::TARGET, " can go "));
        more.extend(swatch(colour::HINT, " hint  x taken"));
        vec![
            Line::styled(pieces, dim),
            Line::styled(marks, dim),
            Line::from(colours),
            Line::from(more),
        ]
    }

    fn input_line(&self) -> Line<'static> {
        let mut spans = vec![
            Span::styled("> ", Style::new().fg(Color::LightYellow)),
            Span::raw(self.input.clone()),
            Span::styled(" ", Style::new().add_modifier(Modifier::REVERSED)),
        ];
        let typed = self.input.trim();
        if !typed.is_empty() && input::parse(typed).is_ok_and(|i| matches!(i, Input::Move(_))) {
            let candidates = self.session.candidates(typed);
            let preview = match candidates.as_slice() {
                [] => String::new(),
                [only] => format!("  → {only}"),
                many => format!("  ({} moves match)", many.len()),
            };
            spans.push(Span::styled(preview, Style::new().fg(Color::DarkGray)));
        }
        Line::from(spans)
    }

    fn draw_help(&self, frame: &mut Frame, area: Rect) {
        let mut lines = vec![Line::styled(
            "Keys",
            Style::new().add_modifier(Modifier::BOLD),
        )];
        lines.extend(
            KEYS.iter()
                .map(|(k, what)| Line::raw(format!(" {k:<8} {what}"))),
        );
        lines.push(Line::styled(
            "Typed commands",
            Style::new().add_modifier(Modifier::BOLD),
        ));
        lines.extend(
            COMMANDS
                .iter()
                .map(|(c, what)| Line::raw(format!(" {c:<12} {what}"))),
        );
        let height = (lines.len() as u16 + 2).min(area.height);
        let width = 70.min(area.width);
        let popup = Rect {
            x: area.x + (area.width - width) / 2,
            y: area.y + (area.height - height) / 2,
            width,
            height,
        };
        frame.render_widget(Clear, popup);
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(" Help (any key closes) "),
            ),
            popup,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::colour;

    /// The RGB of an xterm 256-colour palette index from 16 on.
    fn xterm_rgb(index: u8) -> [f64; 3] {
        let level = |v: u8| {
            if v == 0 {
                0.0
            } else {
                55.0 + 40.0 * f64::from(v)
            }
        };
        match index {
            16..=231 => {
                let i = index - 16;
                [level(i / 36), level(i / 6 % 6), level(i % 6)]
            }
            232..=255 => [8.0 + 10.0 * f64::from(index - 232); 3],
            _ => panic!("a system colour: {index}"),
        }
    }

    fn distance(a: u8, b: u8) -> f64 {
        let (a, b) = (xterm_rgb(a), xterm_rgb(b));
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    #[test]
    fn the_palette_reads_as_xterm_does() {
        assert_eq!(xterm_rgb(180), [215.0, 175.0, 135.0]);
        assert_eq!(xterm_rgb(16), [0.0; 3]);
        assert_eq!(xterm_rgb(231), [255.0; 3]);
    }

    #[test]
    fn the_last_move_stands_out_from_every_other_colour_of_the_board() {
        let others = [
            colour::LIGHT,
            colour::DARK,
            colour::SPECIAL,
            colour::CASTLE,
            colour::HINT,
            colour::TARGET,
            colour::SELECTED,
        ];
        for other in others {
            let d = distance(colour::LAST_MOVE, other);
            assert!(
                d > 100.0,
                "last move {} vs {other}: {d:.0}",
                colour::LAST_MOVE
            );
        }
        // The old highlight (179) was all but the light squares' colour.
        assert!(distance(179, colour::LIGHT) < 50.0);
    }
}
