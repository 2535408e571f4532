"""Country tables: CAMEO actor country codes -> ISO 3166-1 alpha-3, and ISO codes -> UN M49 region, name.

MIRAI standardises GDELT's actor countries to ISO 3166 and drops "missing or outdated codes". GDELT
codes an actor's country with the CAMEO codebook's three-letter codes. Most of them are the ISO
alpha-3 codes themselves, so every current ISO code maps to itself (this also covers countries GDELT
added after the 2012 codebook, such as South Sudan, SSD). The exceptions are the point of this module:

* codes CAMEO kept or made up where ISO differs: Romania ROM (ISO ROU since 2002), East Timor TMP
  (ISO TLS since 2002), Isle of Man IMY (ISO IMN), Montenegro MTN (ISO MNE since 2006), and Zaire ZAR
  (ISO's code for the DR Congo until 1997; the codebook now uses COD, which is ISO's own);
* parts of a country that CAMEO codes as if they were one: the West Bank WSB and Gaza Strip GZS (the
  two parts of ISO's Palestine, PSE) and Baghdad BAG (Iraq);
* codes that name no country map to nothing (:data:`CAMEO_NOT_COUNTRIES` says why, for reject
  details): CAMEO's regions (AFR Africa, EUR Europe, MEA Middle East, WST "the West", ...), states that
  no longer exist (Yugoslavia, Serbia and Montenegro, the USSR, the Netherlands Antilles), and Kosovo,
  which has no ISO 3166-1 code (XK/XKX are user-assigned, not part of the standard).

Regions are UN M49 sub-regions; for sub-Saharan Africa and for Latin America and the Caribbean the
M49 intermediate region is used instead (Eastern/Middle/Southern/Western Africa; Caribbean, Central
America, South America), because those two sub-regions would lump 53 and 52 places into one group and
make region balancing meaningless. M49 lists no Taiwan; it is put in Eastern Asia.
"""

from __future__ import annotations

from typing import Final

NORTHERN_AFRICA: Final = "Northern Africa"
EASTERN_AFRICA: Final = "Eastern Africa"
MIDDLE_AFRICA: Final = "Middle Africa"
SOUTHERN_AFRICA: Final = "Southern Africa"
WESTERN_AFRICA: Final = "Western Africa"
CARIBBEAN: Final = "Caribbean"
CENTRAL_AMERICA: Final = "Central America"
SOUTH_AMERICA: Final = "South America"
NORTHERN_AMERICA: Final = "Northern America"
CENTRAL_ASIA: Final = "Central Asia"
EASTERN_ASIA: Final = "Eastern Asia"
SOUTH_EASTERN_ASIA: Final = "South-eastern Asia"
SOUTHERN_ASIA: Final = "Southern Asia"
WESTERN_ASIA: Final = "Western Asia"
EASTERN_EUROPE: Final = "Eastern Europe"
NORTHERN_EUROPE: Final = "Northern Europe"
SOUTHERN_EUROPE: Final = "Southern Europe"
WESTERN_EUROPE: Final = "Western Europe"
AUSTRALIA_NZ: Final = "Australia and New Zealand"
MELANESIA: Final = "Melanesia"
MICRONESIA: Final = "Micronesia"
POLYNESIA: Final = "Polynesia"
ANTARCTICA: Final = "Antarctica"

# (ISO 3166-1 alpha-3, short English name, region): all 249 officially assigned codes.
_ISO_COUNTRIES: Final[tuple[tuple[str, str, str], ...]] = (
    # Africa
    ("DZA", "Algeria", NORTHERN_AFRICA),
    ("EGY", "Egypt", NORTHERN_AFRICA),
    ("LBY", "Libya", NORTHERN_AFRICA),
    ("MAR", "Morocco", NORTHERN_AFRICA),
    ("SDN", "Sudan", NORTHERN_AFRICA),
    ("TUN", "Tunisia", NORTHERN_AFRICA),
    ("ESH", "Western Sahara", NORTHERN_AFRICA),
    ("IOT", "British Indian Ocean Territory", EASTERN_AFRICA),
    ("BDI", "Burundi", EASTERN_AFRICA),
    ("COM", "Comoros", EASTERN_AFRICA),
    ("DJI", "Djibouti", EASTERN_AFRICA),
    ("ERI", "Eritrea", EASTERN_AFRICA),
    ("ETH", "Ethiopia", EASTERN_AFRICA),
    ("ATF", "French Southern Territories", EASTERN_AFRICA),
    ("KEN", "Kenya", EASTERN_AFRICA),
    ("MDG", "Madagascar", EASTERN_AFRICA),
    ("MWI", "Malawi", EASTERN_AFRICA),
    ("MUS", "Mauritius", EASTERN_AFRICA),
    ("MYT", "Mayotte", EASTERN_AFRICA),
    ("MOZ", "Mozambique", EASTERN_AFRICA),
    ("REU", "Réunion", EASTERN_AFRICA),
    ("RWA", "Rwanda", EASTERN_AFRICA),
    ("SYC", "Seychelles", EASTERN_AFRICA),
    ("SOM", "Somalia", EASTERN_AFRICA),
    ("SSD", "South Sudan", EASTERN_AFRICA),
    ("UGA", "Uganda", EASTERN_AFRICA),
    ("TZA", "Tanzania", EASTERN_AFRICA),
    ("ZMB", "Zambia", EASTERN_AFRICA),
    ("ZWE", "Zimbabwe", EASTERN_AFRICA),
    ("AGO", "Angola", MIDDLE_AFRICA),
    ("CMR", "Cameroon", MIDDLE_AFRICA),
    ("CAF", "Central African Republic", MIDDLE_AFRICA),
    ("TCD", "Chad", MIDDLE_AFRICA),
    ("COG", "Republic of the Congo", MIDDLE_AFRICA),
    ("COD", "Democratic Republic of the Congo", MIDDLE_AFRICA),
    ("GNQ", "Equatorial Guinea", MIDDLE_AFRICA),
    ("GAB", "Gabon", MIDDLE_AFRICA),
    ("STP", "Sao Tome and Principe", MIDDLE_AFRICA),
    ("BWA", "Botswana", SOUTHERN_AFRICA),
    ("SWZ", "Eswatini", SOUTHERN_AFRICA),
    ("LSO", "Lesotho", SOUTHERN_AFRICA),
    ("NAM", "Namibia", SOUTHERN_AFRICA),
    ("ZAF", "South Africa", SOUTHERN_AFRICA),
    ("BEN", "Benin", WESTERN_AFRICA),
    ("BFA", "Burkina Faso", WESTERN_AFRICA),
    ("CPV", "Cabo Verde", WESTERN_AFRICA),
    ("CIV", "Côte d'Ivoire", WESTERN_AFRICA),
    ("GMB", "Gambia", WESTERN_AFRICA),
    ("GHA", "Ghana", WESTERN_AFRICA),
    ("GIN", "Guinea", WESTERN_AFRICA),
    ("GNB", "Guinea-Bissau", WESTERN_AFRICA),
    ("LBR", "Liberia", WESTERN_AFRICA),
    ("MLI", "Mali", WESTERN_AFRICA),
    ("MRT", "Mauritania", WESTERN_AFRICA),
    ("NER", "Niger", WESTERN_AFRICA),
    ("NGA", "Nigeria", WESTERN_AFRICA),
    ("SHN", "Saint Helena", WESTERN_AFRICA),
    ("SEN", "Senegal", WESTERN_AFRICA),
    ("SLE", "Sierra Leone", WESTERN_AFRICA),
    ("TGO", "Togo", WESTERN_AFRICA),
    # Americas
    ("AIA", "Anguilla", CARIBBEAN),
    ("ATG", "Antigua and Barbuda", CARIBBEAN),
    ("ABW", "Aruba", CARIBBEAN),
    ("BHS", "Bahamas", CARIBBEAN),
    ("BRB", "Barbados", CARIBBEAN),
    ("BES", "Bonaire, Sint Eustatius and Saba", CARIBBEAN),
    ("VGB", "British Virgin Islands", CARIBBEAN),
    ("CYM", "Cayman Islands", CARIBBEAN),
    ("CUB", "Cuba", CARIBBEAN),
    ("CUW", "Curaçao", CARIBBEAN),
    ("DMA", "Dominica", CARIBBEAN),
    ("DOM", "Dominican Republic", CARIBBEAN),
    ("GRD", "Grenada", CARIBBEAN),
    ("GLP", "Guadeloupe", CARIBBEAN),
    ("HTI", "Haiti", CARIBBEAN),
    ("JAM", "Jamaica", CARIBBEAN),
    ("MTQ", "Martinique", CARIBBEAN),
    ("MSR", "Montserrat", CARIBBEAN),
    ("PRI", "Puerto Rico", CARIBBEAN),
    ("BLM", "Saint Barthélemy", CARIBBEAN),
    ("KNA", "Saint Kitts and Nevis", CARIBBEAN),
    ("LCA", "Saint Lucia", CARIBBEAN),
    ("MAF", "Saint Martin (French part)", CARIBBEAN),
    ("VCT", "Saint Vincent and the Grenadines", CARIBBEAN),
    ("SXM", "Sint Maarten (Dutch part)", CARIBBEAN),
    ("TTO", "Trinidad and Tobago", CARIBBEAN),
    ("TCA", "Turks and Caicos Islands", CARIBBEAN),
    ("VIR", "United States Virgin Islands", CARIBBEAN),
    ("BLZ", "Belize", CENTRAL_AMERICA),
    ("CRI", "Costa Rica", CENTRAL_AMERICA),
    ("SLV", "El Salvador", CENTRAL_AMERICA),
    ("GTM", "Guatemala", CENTRAL_AMERICA),
    ("HND", "Honduras", CENTRAL_AMERICA),
    ("MEX", "Mexico", CENTRAL_AMERICA),
    ("NIC", "Nicaragua", CENTRAL_AMERICA),
    ("PAN", "Panama", CENTRAL_AMERICA),
    ("ARG", "Argentina", SOUTH_AMERICA),
    ("BOL", "Bolivia", SOUTH_AMERICA),
    ("BVT", "Bouvet Island", SOUTH_AMERICA),
    ("BRA", "Brazil", SOUTH_AMERICA),
    ("CHL", "Chile", SOUTH_AMERICA),
    ("COL", "Colombia", SOUTH_AMERICA),
    ("ECU", "Ecuador", SOUTH_AMERICA),
    ("FLK", "Falkland Islands", SOUTH_AMERICA),
    ("GUF", "French Guiana", SOUTH_AMERICA),
    ("GUY", "Guyana", SOUTH_AMERICA),
    ("PRY", "Paraguay", SOUTH_AMERICA),
    ("PER", "Peru", SOUTH_AMERICA),
    ("SGS", "South Georgia and the South Sandwich Islands", SOUTH_AMERICA),
    ("SUR", "Suriname", SOUTH_AMERICA),
    ("URY", "Uruguay", SOUTH_AMERICA),
    ("VEN", "Venezuela", SOUTH_AMERICA),
    ("BMU", "Bermuda", NORTHERN_AMERICA),
    ("CAN", "Canada", NORTHERN_AMERICA),
    ("GRL", "Greenland", NORTHERN_AMERICA),
    ("SPM", "Saint Pierre and Miquelon", NORTHERN_AMERICA),
    ("USA", "United States", NORTHERN_AMERICA),
    # Asia
    ("KAZ", "Kazakhstan", CENTRAL_ASIA),
    ("KGZ", "Kyrgyzstan", CENTRAL_ASIA),
    ("TJK", "Tajikistan", CENTRAL_ASIA),
    ("TKM", "Turkmenistan", CENTRAL_ASIA),
    ("UZB", "Uzbekistan", CENTRAL_ASIA),
    ("CHN", "China", EASTERN_ASIA),
    ("HKG", "Hong Kong", EASTERN_ASIA),
    ("MAC", "Macao", EASTERN_ASIA),
    ("PRK", "North Korea", EASTERN_ASIA),
    ("JPN", "Japan", EASTERN_ASIA),
    ("MNG", "Mongolia", EASTERN_ASIA),
    ("KOR", "South Korea", EASTERN_ASIA),
    ("TWN", "Taiwan", EASTERN_ASIA),
    ("BRN", "Brunei", SOUTH_EASTERN_ASIA),
    ("KHM", "Cambodia", SOUTH_EASTERN_ASIA),
    ("IDN", "Indonesia", SOUTH_EASTERN_ASIA),
    ("LAO", "Laos", SOUTH_EASTERN_ASIA),
    ("MYS", "Malaysia", SOUTH_EASTERN_ASIA),
    ("MMR", "Myanmar", SOUTH_EASTERN_ASIA),
    ("PHL", "Philippines", SOUTH_EASTERN_ASIA),
    ("SGP", "Singapore", SOUTH_EASTERN_ASIA),
    ("THA", "Thailand", SOUTH_EASTERN_ASIA),
    ("TLS", "Timor-Leste", SOUTH_EASTERN_ASIA),
    ("VNM", "Vietnam", SOUTH_EASTERN_ASIA),
    ("AFG", "Afghanistan", SOUTHERN_ASIA),
    ("BGD", "Bangladesh", SOUTHERN_ASIA),
    ("BTN", "Bhutan", SOUTHERN_ASIA),
    ("IND", "India", SOUTHERN_ASIA),
    ("IRN", "Iran", SOUTHERN_ASIA),
    ("MDV", "Maldives", SOUTHERN_ASIA),
    ("NPL", "Nepal", SOUTHERN_ASIA),
    ("PAK", "Pakistan", SOUTHERN_ASIA),
    ("LKA", "Sri Lanka", SOUTHERN_ASIA),
    ("ARM", "Armenia", WESTERN_ASIA),
    ("AZE", "Azerbaijan", WESTERN_ASIA),
    ("BHR", "Bahrain", WESTERN_ASIA),
    ("CYP", "Cyprus", WESTERN_ASIA),
    ("GEO", "Georgia", WESTERN_ASIA),
    ("IRQ", "Iraq", WESTERN_ASIA),
    ("ISR", "Israel", WESTERN_ASIA),
    ("JOR", "Jordan", WESTERN_ASIA),
    ("KWT", "Kuwait", WESTERN_ASIA),
    ("LBN", "Lebanon", WESTERN_ASIA),
    ("OMN", "Oman", WESTERN_ASIA),
    ("QAT", "Qatar", WESTERN_ASIA),
    ("SAU", "Saudi Arabia", WESTERN_ASIA),
    ("PSE", "Palestine", WESTERN_ASIA),
    ("SYR", "Syria", WESTERN_ASIA),
    ("TUR", "Türkiye", WESTERN_ASIA),
    ("ARE", "United Arab Emirates", WESTERN_ASIA),
    ("YEM", "Yemen", WESTERN_ASIA),
    # Europe
    ("BLR", "Belarus", EASTERN_EUROPE),
    ("BGR", "Bulgaria", EASTERN_EUROPE),
    ("CZE", "Czechia", EASTERN_EUROPE),
    ("HUN", "Hungary", EASTERN_EUROPE),
    ("POL", "Poland", EASTERN_EUROPE),
    ("MDA", "Moldova", EASTERN_EUROPE),
    ("ROU", "Romania", EASTERN_EUROPE),
    ("RUS", "Russia", EASTERN_EUROPE),
    ("SVK", "Slovakia", EASTERN_EUROPE),
    ("UKR", "Ukraine", EASTERN_EUROPE),
    ("ALA", "Åland Islands", NORTHERN_EUROPE),
    ("DNK", "Denmark", NORTHERN_EUROPE),
    ("EST", "Estonia", NORTHERN_EUROPE),
    ("FRO", "Faroe Islands", NORTHERN_EUROPE),
    ("FIN", "Finland", NORTHERN_EUROPE),
    ("GGY", "Guernsey", NORTHERN_EUROPE),
    ("ISL", "Iceland", NORTHERN_EUROPE),
    ("IRL", "Ireland", NORTHERN_EUROPE),
    ("IMN", "Isle of Man", NORTHERN_EUROPE),
    ("JEY", "Jersey", NORTHERN_EUROPE),
    ("LVA", "Latvia", NORTHERN_EUROPE),
    ("LTU", "Lithuania", NORTHERN_EUROPE),
    ("NOR", "Norway", NORTHERN_EUROPE),
    ("SJM", "Svalbard and Jan Mayen", NORTHERN_EUROPE),
    ("SWE", "Sweden", NORTHERN_EUROPE),
    ("GBR", "United Kingdom", NORTHERN_EUROPE),
    ("ALB", "Albania", SOUTHERN_EUROPE),
    ("AND", "Andorra", SOUTHERN_EUROPE),
    ("BIH", "Bosnia and Herzegovina", SOUTHERN_EUROPE),
    ("HRV", "Croatia", SOUTHERN_EUROPE),
    ("GIB", "Gibraltar", SOUTHERN_EUROPE),
    ("GRC", "Greece", SOUTHERN_EUROPE),
    ("VAT", "Holy See", SOUTHERN_EUROPE),
    ("ITA", "Italy", SOUTHERN_EUROPE),
    ("MLT", "Malta", SOUTHERN_EUROPE),
    ("MNE", "Montenegro", SOUTHERN_EUROPE),
    ("MKD", "North Macedonia", SOUTHERN_EUROPE),
    ("PRT", "Portugal", SOUTHERN_EUROPE),
    ("SMR", "San Marino", SOUTHERN_EUROPE),
    ("SRB", "Serbia", SOUTHERN_EUROPE),
    ("SVN", "Slovenia", SOUTHERN_EUROPE),
    ("ESP", "Spain", SOUTHERN_EUROPE),
    ("AUT", "Austria", WESTERN_EUROPE),
    ("BEL", "Belgium", WESTERN_EUROPE),
    ("FRA", "France", WESTERN_EUROPE),
    ("DEU", "Germany", WESTERN_EUROPE),
    ("LIE", "Liechtenstein", WESTERN_EUROPE),
    ("LUX", "Luxembourg", WESTERN_EUROPE),
    ("MCO", "Monaco", WESTERN_EUROPE),
    ("NLD", "Netherlands", WESTERN_EUROPE),
    ("CHE", "Switzerland", WESTERN_EUROPE),
    # Oceania
    ("AUS", "Australia", AUSTRALIA_NZ),
    ("CXR", "Christmas Island", AUSTRALIA_NZ),
    ("CCK", "Cocos (Keeling) Islands", AUSTRALIA_NZ),
    ("HMD", "Heard Island and McDonald Islands", AUSTRALIA_NZ),
    ("NZL", "New Zealand", AUSTRALIA_NZ),
    ("NFK", "Norfolk Island", AUSTRALIA_NZ),
    ("FJI", "Fiji", MELANESIA),
    ("NCL", "New Caledonia", MELANESIA),
    ("PNG", "Papua New Guinea", MELANESIA),
    ("SLB", "Solomon Islands", MELANESIA),
    ("VUT", "Vanuatu", MELANESIA),
    ("GUM", "Guam", MICRONESIA),
    ("KIR", "Kiribati", MICRONESIA),
    ("MHL", "Marshall Islands", MICRONESIA),
    ("FSM", "Micronesia (Federated States of)", MICRONESIA),
    ("NRU", "Nauru", MICRONESIA),
    ("MNP", "Northern Mariana Islands", MICRONESIA),
    ("PLW", "Palau", MICRONESIA),
    ("UMI", "United States Minor Outlying Islands", MICRONESIA),
    ("ASM", "American Samoa", POLYNESIA),
    ("COK", "Cook Islands", POLYNESIA),
    ("PYF", "French Polynesia", POLYNESIA),
    ("NIU", "Niue", POLYNESIA),
    ("PCN", "Pitcairn", POLYNESIA),
    ("WSM", "Samoa", POLYNESIA),
    ("TKL", "Tokelau", POLYNESIA),
    ("TON", "Tonga", POLYNESIA),
    ("TUV", "Tuvalu", POLYNESIA),
    ("WLF", "Wallis and Futuna", POLYNESIA),
    ("ATA", "Antarctica", ANTARCTICA),
)

ISO3_NAME: Final[dict[str, str]] = {code: name for code, name, _ in _ISO_COUNTRIES}
ISO3_REGION: Final[dict[str, str]] = {code: region for code, _, region in _ISO_COUNTRIES}

# CAMEO codes that differ from the ISO code of the same place (see the module docstring).
_CAMEO_EXCEPTIONS: Final[dict[str, str]] = {
    "ROM": "ROU",  # Romania: ISO's code until 2002, still CAMEO's
    "TMP": "TLS",  # East Timor: ISO's code until 2002, still CAMEO's
    "IMY": "IMN",  # Isle of Man: CAMEO's own code
    "MTN": "MNE",  # Montenegro: CAMEO's code from before ISO assigned MNE in 2006
    "ZAR": "COD",  # Zaire: ISO's code for the DR Congo until 1997 (the codebook now uses COD)
    "WSB": "PSE",  # West Bank: part of Palestine
    "GZS": "PSE",  # Gaza Strip: part of Palestine
    "BAG": "IRQ",  # Baghdad: CAMEO codes the city like a country; it is Iraq's capital
}

CAMEO_TO_ISO3: Final[dict[str, str]] = {**{code: code for code in ISO3_NAME}, **_CAMEO_EXCEPTIONS}

# CAMEO country-field codes that name no ISO 3166 country, with the reason (used in reject details).
CAMEO_NOT_COUNTRIES: Final[dict[str, str]] = {
    "AFR": "region: Africa",
    "ASA": "region: Asia",
    "BLK": "region: Balkans",
    "CAS": "region: Central Asia",
    "CAU": "region: Caucasus",
    "CEU": "region: Central Europe",
    "CFR": "region: Central Africa",
    "CRB": "region: Caribbean",
    "EAF": "region: Eastern Africa",
    "EEU": "region: Eastern Europe",
    "EIN": "region: East Indies",
    "EUR": "region: Europe",
    "LAM": "region: Latin America",
    "MDT": "region: Mediterranean",
    "MEA": "region: Middle East",
    "NAF": "region: North Africa",
    "NMR": "region: North America",
    "PGS": "region: Persian Gulf",
    "SAF": "region: Southern Africa",
    "SAM": "region: South America",
    "SAS": "region: South Asia",
    "SCN": "region: Scandinavia",
    "SEA": "region: Southeast Asia",
    "WAF": "region: West Africa",
    "WST": "region: the West",
    "ANT": "outdated: Netherlands Antilles, dissolved in 2010",
    "SCG": "outdated: Serbia and Montenegro, split in 2006",
    "YUG": "outdated: Yugoslavia",
    "USR": "outdated: Soviet Union",
    "SUN": "outdated: Soviet Union",
    "KSV": "Kosovo has no ISO 3166-1 code",
}


def iso3_of(cameo_code: str | None) -> str | None:
    """The ISO alpha-3 code of a CAMEO actor country code, or None when it names no country."""
    return None if cameo_code is None else CAMEO_TO_ISO3.get(cameo_code.strip().upper())


def why_not_a_country(cameo_code: str) -> str:
    """A short reason for a reject detail: a region, an outdated state, or an unknown code."""
    return CAMEO_NOT_COUNTRIES.get(cameo_code.strip().upper(), "not a CAMEO country code")
