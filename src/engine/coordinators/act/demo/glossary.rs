//! The demo team's small built-in glossary: forty terms of the five fields
//! of the built-in set (tea, coffee and cafes, interior design,
//! architecture, fashion), written for Roundtable as general domain
//! knowledge (not drawn from any task's reference solutions).
//!
//! Who knows what is the point of the demo: a **member** only recognises a
//! term's *name* when its own task's words trigger it (as a model recalls
//! jargon); the **expert** it creates in break time knows the term's
//! definition and its practical tip, and says them. Knowledge acquisition
//! then stores what the expert said, and the production meeting uses it,
//! so the break visibly adds what the deliverable later contains.

use super::text::{normalise, words};

/// The five fields of the built-in set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    Tea,
    Cafe,
    Design,
    Architecture,
    Fashion,
}

/// One glossary term.
pub struct Term {
    pub field: Field,
    /// The term as written (lower case unless a proper noun).
    pub term: &'static str,
    /// One sentence of the form "<term> is …".
    pub definition: &'static str,
    /// One practical sentence.
    pub tip: &'static str,
    /// Words of a task that make the term relevant to it.
    pub triggers: &'static [&'static str],
}

macro_rules! term {
    ($f:ident, $t:expr, $d:expr, $tip:expr, [$($w:expr),* $(,)?]) => {
        Term { field: Field::$f, term: $t, definition: $d, tip: $tip, triggers: &[$($w),*] }
    };
}

pub const TERMS: &[Term] = &[
    // Tea.
    term!(Tea, "rooibos", "Rooibos is a naturally caffeine-free red bush tisane from South Africa with a sweet, nutty, vanilla-like taste.", "Steep rooibos in boiling water for five to seven minutes; it never turns bitter, so it suits long evening brews and a splash of milk.", ["caffeine", "evening", "night", "sleep", "relax", "decaf", "bedtime", "dinner", "sweetness"]),
    term!(Tea, "chamomile", "Chamomile is a herbal infusion of dried daisy-like flowers with a gentle apple and honey flavour and a calming reputation.", "Brew chamomile covered for five minutes and blend it with lemon balm or a little lavender for a soothing bedtime cup.", ["sleep", "relax", "calm", "bedtime", "herbal", "stress", "soothing", "evening"]),
    term!(Tea, "gaiwan", "A gaiwan is a lidded porcelain bowl on a saucer used for gongfu brewing, with many short infusions of the same leaves.", "Fill a gaiwan about a third with leaves, pour off each infusion completely after ten to thirty seconds and lengthen the steeps gradually.", ["brew", "brewing", "gongfu", "teaware", "infusion", "steep", "bitter", "ritual"]),
    term!(Tea, "oolong", "Oolong is a partly oxidised tea between green and black, from floral high-mountain styles to dark roasted ones.", "Start with a floral Tieguanyin or a roasted Da Hong Pao and resteep the same leaves several times at about 90 to 95C.", ["floral", "roasted", "taiwan", "tieguanyin", "complex", "grassy", "explore"]),
    term!(Tea, "matcha", "Matcha is a stone-ground powder of shade-grown Japanese green tea that is whisked into water rather than steeped.", "Sift the matcha, use water around 80C and whisk in a zigzag with a bamboo chasen until a fine foam forms, or make a latte.", ["coffee", "energy", "focus", "morning", "latte", "whisk", "jittery", "crash"]),
    term!(Tea, "cold brew tea", "Cold brew tea is tea steeped in cold water in the fridge for several hours, giving a smooth, naturally sweet drink without bitterness.", "Use about ten grams of leaf per litre, refrigerate six to twelve hours and strain; green tea and oolong shine this way over ice.", ["iced", "cold", "summer", "bitterness", "smooth", "refreshing", "fridge", "batch", "jug"]),
    term!(Tea, "masala chai", "Masala chai is black tea simmered with milk, sugar and spices such as cardamom, ginger, cinnamon and clove.", "Simmer whole spices in water first, add strong Assam and milk, then strain; whole spices taste cleaner than powders.", ["spice", "spiced", "milk", "creamy", "warming", "winter", "sugar", "malty"]),
    term!(Tea, "loose-leaf tea", "Loose-leaf tea is whole or broken leaves sold without bags, with room to unfurl and a fuller flavour than bagged dust.", "Buy loose-leaf tea in small amounts from a specialist shop, keep it in an airtight tin away from light and use an infuser basket.", ["bags", "gift", "shop", "fresh", "quality", "supermarket", "beginner", "new", "teapot"]),
    // Coffee and cafes.
    term!(Cafe, "pour-over", "Pour-over is a manual brewing method in which hot water is poured slowly over ground coffee in a cone with a paper filter.", "Use a gooseneck kettle, a scale and a ratio near one to sixteen, and let the grounds bloom for thirty seconds before pouring in circles.", ["filter", "manual", "home", "black", "brewer", "kettle", "enthusiasts", "clean"]),
    term!(Cafe, "espresso machine", "An espresso machine is a brewer that forces hot water through finely ground, tamped coffee at about nine bars to make a concentrated shot.", "Pair the machine with a good grinder and dial in every new bag by adjusting the grind size and the shot time.", ["espresso", "shot", "machine", "cappuccino", "crema", "equipment", "milk"]),
    term!(Cafe, "burr grinder", "A burr grinder is a grinder that crushes beans between two burrs to an even, adjustable size, unlike a blade grinder that chops unevenly.", "Grind just before brewing: coarse for French press and cold brew, medium for drip, fine for espresso.", ["grinder", "grind", "beans", "equipment", "budget", "buy", "home", "quality"]),
    term!(Cafe, "cold brew coffee", "Cold brew coffee is coarse-ground coffee steeped in cold water for twelve to twenty-four hours, making a smooth, low-acid concentrate.", "Steep one part coffee to eight parts water overnight, filter it, and dilute the concentrate with water or milk over ice.", ["cold", "iced", "summer", "acidity", "acid", "smooth", "hot", "afternoons", "menu", "drinks"]),
    term!(Cafe, "third place", "A third place is a social space outside home and work, like a cafe, where regulars linger, meet and feel at home.", "Offer comfortable seating, reliable wifi, power outlets and baristas who remember names, so people come back and stay.", ["community", "regulars", "customers", "study", "work", "neighbourhood", "cosy", "linger", "students"]),
    term!(Cafe, "specialty coffee", "Specialty coffee is high-grade coffee traced to its farm or origin, roasted fresh and brewed to show its distinct flavour notes.", "Rotate a single-origin guest coffee, print its tasting notes on a small card and name the farm and the roast date.", ["beans", "origin", "roast", "roaster", "espresso", "house", "enthusiasts", "choose", "interesting"]),
    term!(Cafe, "latte art", "Latte art is a pattern, such as a heart, tulip or rosetta, poured into an espresso drink with microfoamed milk.", "Steam milk to glossy microfoam around 60C, swirl it and pour from close to the cup to draw the shape.", ["latte", "lattes", "barista", "baristas", "cappuccino", "foam", "foams", "presentation"]),
    term!(Cafe, "oat milk", "Oat milk is a creamy plant-based milk that steams and foams well, the most popular dairy alternative in cafes.", "Stock a barista edition oat milk plus soy or almond, and price plant milks fairly to welcome vegan and lactose-intolerant guests.", ["vegan", "dairy", "lactose", "plant", "intolerant", "foams", "alternative", "allergy"]),
    // Interior design.
    term!(Design, "layered lighting", "Layered lighting is a plan that mixes ambient, task and accent light so a room works for every activity and mood.", "Combine a ceiling light with floor and table lamps, add task light where you read or work, and put everything on dimmers.", ["lighting", "light", "lamp", "lamps", "dark", "brighter", "inviting", "harsh", "overhead"]),
    term!(Design, "warm white lighting", "Warm white lighting is light of about 2700 to 3000 kelvin that gives a soft, yellowish glow rather than a cold blue one.", "Choose 2700K bulbs with a high colour rendering index for living rooms and bedrooms, and keep cooler light for desks.", ["bulbs", "cosy", "warm", "bedroom", "relaxing", "harsh", "calm", "sleep"]),
    term!(Design, "colour palette", "A colour palette is a small set of coordinated colours, usually a dominant neutral, a secondary colour and an accent, repeated across a room.", "Follow the 60-30-10 rule: sixty percent main colour, thirty percent secondary and ten percent accent in cushions, art and textiles.", ["colour", "color", "scheme", "paint", "beige", "bland", "accent", "walls", "neutral"]),
    term!(Design, "focal point", "A focal point is the feature a room is arranged around, such as a fireplace, a large artwork, a view or a statement piece.", "Pick one focal point, orient the seating toward it and keep the walls around it quieter so it stands out.", ["arrange", "furniture", "fireplace", "living", "sofa", "layout", "awkward", "narrow"]),
    term!(Design, "zoning", "Zoning is dividing an open or multipurpose room into areas for different activities with rugs, furniture, lighting or shelving.", "Anchor each zone with its own rug and light, and use an open bookcase or the back of a sofa as a soft divider.", ["office", "work", "studio", "separate", "divide", "multipurpose", "long", "bedroom", "open"]),
    term!(Design, "vertical storage", "Vertical storage is shelving, hooks and tall cabinets that use the height of the walls so floor space stays clear.", "Run shelves up to the ceiling, add hooks behind doors and use baskets so the walls stay tidy instead of cluttered.", ["storage", "clutter", "cluttered", "tiny", "small", "stuff", "bigger", "apartment"]),
    term!(Design, "biophilic design", "Biophilic design is bringing nature indoors with plants, daylight, natural materials and views to make rooms calmer and healthier.", "Group low-light plants such as pothos and snake plants, use wood and linen, and keep windows clear for daylight.", ["plants", "nature", "natural", "calm", "relaxing", "green", "wood", "healthy", "inviting"]),
    term!(Design, "scale and proportion", "Scale and proportion is sizing furniture and decor to the room and to each other so nothing looks lost or overwhelming.", "Choose a rug large enough for the front legs of all seating, and hang curtains high and wide so windows look bigger.", ["rug", "curtains", "sofa", "size", "bigger", "small", "ceiling", "window", "narrow"]),
    // Architecture.
    term!(Architecture, "cross-ventilation", "Cross-ventilation is airflow through openings on opposite sides of a building, which cools rooms without mechanical air conditioning.", "Place windows on facing walls in line with the prevailing breeze, and keep internal doors or transoms open for a clear path.", ["cool", "cooling", "hot", "climate", "conditioning", "air", "humid", "breeze", "ventilation"]),
    term!(Architecture, "thermal mass", "Thermal mass is heavy material such as concrete, brick, stone or rammed earth that absorbs heat by day and releases it at night.", "Expose a stone or concrete floor to winter sun and shade it in summer, so it evens out daily temperature swings.", ["temperature", "desert", "heat", "materials", "nights", "swings", "steady", "stable", "hot"]),
    term!(Architecture, "passive solar design", "Passive solar design is orienting a building and its windows so the sun heats it in winter while overhangs shade it in summer.", "Put living spaces and most glazing on the sunny side and size the roof overhangs to block the high summer sun.", ["solar", "sun", "energy", "bills", "orientation", "sustainable", "heating", "winter", "family"]),
    term!(Architecture, "daylighting", "Daylighting is the design of windows, skylights and reflective surfaces so natural light reaches deep into a building.", "Use clerestory windows, roof lights or light shelves with pale finishes and a shallow plan so daylight reaches the back.", ["natural", "light", "dark", "deep", "windows", "skylight", "narrow", "terrace", "middle"]),
    term!(Architecture, "adaptive reuse", "Adaptive reuse is converting an old building, such as a warehouse, church or factory, to a new use while keeping its character.", "Keep the structure and heritage details like brick and beams, and fit new services as clearly modern insertions.", ["old", "warehouse", "converted", "conversion", "heritage", "brick", "factory", "existing", "facade"]),
    term!(Architecture, "green roof", "A green roof is a roof covered with a waterproof membrane, a growing medium and plants that insulates, cools and holds rainwater.", "Start with a lightweight sedum roof, check that the structure can carry it, and include a root barrier and a drainage layer.", ["roof", "rain", "rainwater", "stormwater", "greener", "sustainable", "city", "urban", "flat", "floods"]),
    term!(Architecture, "open floor plan", "An open floor plan is a layout that joins the kitchen, dining and living areas into one space without walls, improving light and social flow.", "Keep a few half walls, sliding doors or a pantry so smells, noise and mess can still be closed off.", ["open", "plan", "walls", "kitchen", "floor", "floors", "layout", "flow", "ground"]),
    term!(Architecture, "modular construction", "Modular construction is building rooms or units as prefabricated modules in a factory and assembling them on site.", "Design to the module grid and transport limits early; it shortens the build, cuts waste and keeps costs predictable.", ["prefab", "prefabricated", "budget", "affordable", "cost", "costs", "quick", "fast", "build", "tight"]),
    // Fashion.
    term!(Fashion, "capsule wardrobe", "A capsule wardrobe is a small set of versatile, mix-and-match pieces, often about thirty, that covers most occasions.", "Pick two or three neutral base colours plus one accent, and make sure every top works with at least three bottoms.", ["wardrobe", "minimalist", "minimal", "closet", "versatile", "basics", "pieces", "everyday", "pack"]),
    term!(Fashion, "natural fibres", "Natural fibres are fabrics such as cotton, linen, wool and silk that breathe and feel better against the skin than synthetics.", "Read the label: choose linen or cotton for heat and merino wool for warmth, and avoid polyester blends that trap sweat.", ["fabric", "fabrics", "cool", "humid", "summer", "sweat", "polyester", "breathable", "hot"]),
    term!(Fashion, "tailoring", "Tailoring is altering a garment, such as hemming trousers or taking in a waist, so it fits your body rather than a standard size.", "Buy to fit the shoulders and let a tailor adjust sleeves, hems and waist; it costs little and makes clothes look expensive.", ["fit", "fits", "tall", "short", "trousers", "sleeves", "shirt", "suit", "properly"]),
    term!(Fashion, "colour analysis", "Colour analysis is finding which hues suit your skin undertone, hair and eyes, often grouped into warm or cool seasons.", "Hold gold and silver near your face in daylight: if gold flatters you, lean to warm earthy tones, if silver, to cool jewel tones.", ["colours", "colour", "skin", "hair", "suit", "pale", "washed", "tone", "photos"]),
    term!(Fashion, "layering", "Layering is wearing several garments, a base layer, a mid layer and an outer shell, to adapt to changing temperatures.", "Start with a thin merino or cotton base, add a knit or overshirt and finish with a light jacket you can take off.", ["weather", "changing", "cold", "warm", "mornings", "travel", "jacket", "forecast", "winter"]),
    term!(Fashion, "smart casual", "Smart casual is a dress code between formal and relaxed, such as chinos or dark jeans with a shirt, a knit and clean shoes.", "Pair dark jeans or chinos with an oxford shirt or a fine knit, an unstructured blazer and loafers or white sneakers.", ["office", "work", "dress", "code", "casual", "meetings", "interview", "everyday"]),
    term!(Fashion, "slow fashion", "Slow fashion is buying fewer, better-made clothes, thrifting and repairing them instead of following fast trend cycles.", "Shop secondhand and vintage first, check seams and fabric weight, and wash cold and air dry so clothes last.", ["sustainably", "sustainable", "ethical", "fast", "budget", "student", "thrift", "secondhand", "afford"]),
    term!(Fashion, "silhouette", "A silhouette is the overall outline an outfit creates, such as A-line, straight, oversized or fitted.", "Balance proportions: pair a loose top with slim trousers or a fitted top with wide-leg trousers, and define the waist.", ["shape", "body", "petite", "tall", "proportions", "flattering", "oversized", "outfit"]),
];

/// A term by its name (case and hyphens ignored).
pub fn find(name: &str) -> Option<&'static Term> {
    let n = normalise(name);
    TERMS.iter().find(|t| normalise(t.term) == n).or_else(|| {
        // "Expert on rooibos tea" or "the gaiwan": the longest term named.
        TERMS
            .iter()
            .filter(|t| contains_phrase(&n, &normalise(t.term)))
            .max_by_key(|t| t.term.len())
    })
}

/// Whether `text` (normalised) holds `phrase` (normalised) as whole words.
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    !phrase.is_empty() && format!(" {text} ").contains(&format!(" {phrase} "))
}

/// Whether `text` names the term (whole words, case and hyphens ignored).
pub fn mentions(text: &str, t: &Term) -> bool {
    contains_phrase(&normalise(text), &normalise(t.term))
}

/// How strongly a set of task words calls for a term: one point per
/// trigger among them (a plural `s` ignored), two more when the term
/// itself is named.
pub fn relatedness(t: &Term, task_words: &[String]) -> usize {
    // "latte" and "lattes" are one trigger.
    let stem = |w: &str| w.strip_suffix('s').unwrap_or(w).to_string();
    let mut hits: Vec<String> = t
        .triggers
        .iter()
        .filter(|w| task_words.iter().any(|x| stem(x) == stem(w)))
        .map(|w| stem(w))
        .collect();
    hits.sort();
    hits.dedup();
    let hits = hits.len();
    let named = contains_phrase(&task_words.join(" "), &normalise(t.term));
    hits + if named { 2 } else { 0 }
}

/// The terms a text's own words call for (relatedness at least `min`),
/// in the field the text is most about (by the summed relatedness of its
/// terms), most related first (ties: glossary order).
pub fn triggered(text: &str, min: usize) -> Vec<&'static Term> {
    let w = words(text);
    let mut scored: Vec<(usize, usize, &Term)> = TERMS
        .iter()
        .enumerate()
        .map(|(i, t)| (relatedness(t, &w), i, t))
        .filter(|(r, _, _)| *r > 0)
        .collect();
    let field = dominant(&scored);
    scored.retain(|(r, _, t)| *r >= min.max(1) && Some(t.field) == field);
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, t)| t).collect()
}

/// The field a text is most about, if any term relates to it.
pub fn field_of(text: &str) -> Option<Field> {
    let w = words(text);
    let scored: Vec<(usize, usize, &Term)> = TERMS
        .iter()
        .enumerate()
        .map(|(i, t)| (relatedness(t, &w), i, t))
        .filter(|(r, _, _)| *r > 0)
        .collect();
    dominant(&scored)
}

/// The field with the highest summed relatedness (ties: the field of the
/// earliest term).
fn dominant(scored: &[(usize, usize, &Term)]) -> Option<Field> {
    let mut totals: Vec<(Field, usize)> = Vec::new();
    for (r, _, t) in scored {
        match totals.iter_mut().find(|(f, _)| *f == t.field) {
            Some(x) => x.1 += r,
            None => totals.push((t.field, *r)),
        }
    }
    totals
        .iter()
        .rev()
        .max_by_key(|(_, total)| *total)
        .map(|(f, _)| *f)
}

/// The terms a text names, in glossary order.
pub fn named_in(text: &str) -> Vec<&'static Term> {
    TERMS.iter().filter(|t| mentions(text, t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_glossary_is_well_formed_and_found_by_its_words() {
        assert!(TERMS.len() >= 40, "{}", TERMS.len());
        for t in TERMS {
            let head = t.definition.to_lowercase();
            assert!(
                head.contains(" is ") || head.contains(" are "),
                "{}",
                t.term
            );
            assert!(
                head.starts_with(&t.term.to_lowercase())
                    || head.starts_with(&format!("a {}", t.term.to_lowercase()))
                    || head.starts_with(&format!("an {}", t.term.to_lowercase())),
                "{}",
                t.term
            );
            assert!(t.triggers.len() >= 5, "{}", t.term);
        }
        assert_eq!(find("Rooibos").map(|t| t.term), Some("rooibos"));
        assert_eq!(find("pour over").map(|t| t.term), Some("pour-over"));
        assert_eq!(
            find("the cold brew tea method").map(|t| t.term),
            Some("cold brew tea")
        );
        assert!(find("quantum physics").is_none());
        let relax = triggered("A tea to relax in the evening without caffeine", 1);
        assert_eq!(relax.first().map(|t| t.term), Some("rooibos"));
        assert!(mentions("Try a GAIWAN.", &TERMS[2]));
        assert!(!mentions("gaiwans", &TERMS[2]));
        // Only the field the task is about: "budget" alone is not building.
        let shop = triggered(
            "Shop for clothes sustainably on a student budget, not fast fashion",
            2,
        );
        assert!(
            shop.iter().all(|t| t.field == Field::Fashion),
            "{:?}",
            shop.iter().map(|t| t.term).collect::<Vec<_>>()
        );
        for f in [
            Field::Tea,
            Field::Cafe,
            Field::Design,
            Field::Architecture,
            Field::Fashion,
        ] {
            assert_eq!(TERMS.iter().filter(|t| t.field == f).count(), 8);
        }
    }
}
