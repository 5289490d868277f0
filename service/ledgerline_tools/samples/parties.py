"""Synthetic sellers, buyers and banks: plausible names with each country's legal forms.

Faker supplies surnames, person names, streets, postcodes and cities per locale (seeded per
invoice); the language's vocabulary supplies business words, legal forms and name patterns.
"""

from __future__ import annotations

import functools
import random
import re
import unicodedata

from babel import Locale
from faker import Faker

from . import identifiers as ids
from .languages import Country, Language
from .model import Bank, Party

TLD = {"GB": "co.uk", "US": "com", "IE": "ie", "DE": "de", "AT": "at", "CH": "ch", "FR": "fr",
       "ES": "es", "IT": "it", "NL": "nl", "PL": "pl", "CZ": "cz", "PT": "pt", "SE": "se",
       "DK": "dk", "NO": "no", "FI": "fi"}
BANKS = {
    "GB": ("Barclays Bank", "NatWest", "Lloyds Bank", "HSBC UK"),
    "IE": ("AIB", "Bank of Ireland", "PTSB"),
    "US": ("First National Bank", "Chase Bank", "Wells Fargo", "{city} Community Bank"),
    "DE": ("Sparkasse {city}", "Volksbank {city} eG", "Deutsche Bank", "Commerzbank", "Postbank"),
    "AT": ("Erste Bank", "Raiffeisenbank {city}", "Bank Austria"),
    "CH": ("UBS Switzerland AG", "Raiffeisenbank {city}", "PostFinance"),
    "FR": ("Crédit Agricole", "BNP Paribas", "Société Générale", "Banque Populaire", "LCL"),
    "ES": ("Banco Santander", "BBVA", "CaixaBank", "Banco Sabadell"),
    "IT": ("Intesa Sanpaolo", "UniCredit", "Banco BPM", "BPER Banca"),
    "NL": ("ING Bank", "Rabobank", "ABN AMRO", "bunq"),
    "PL": ("PKO Bank Polski", "Bank Pekao S.A.", "mBank S.A.", "Santander Bank Polska"),
    "CZ": ("Česká spořitelna", "ČSOB", "Komerční banka", "Fio banka"),
    "PT": ("Caixa Geral de Depósitos", "Millennium bcp", "Novo Banco"),
    "SE": ("Swedbank", "Handelsbanken", "SEB", "Nordea"),
    "DK": ("Danske Bank", "Nordea", "Jyske Bank", "Sydbank"),
    "NO": ("DNB", "SpareBank 1", "Nordea"),
    "FI": ("Nordea", "OP", "Danske Bank", "Aktia"),
}
SELLER_MAILBOXES = ("info", "billing", "office", "invoices")
BUYER_MAILBOXES = ("ap", "accounts", "office", "purchasing")
P_LETTER_SUFFIX = 0.1      # "12a"
P_FLAT_NUMBER = 0.25       # Polish and Czech "12/4"


@functools.cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def faker_for(rng: random.Random, country: Country) -> Faker:
    fake = _faker(country.faker)
    fake.seed_instance(rng.getrandbits(48))
    return fake


def company_name(rng: random.Random, lang: Language, country: Country, fake: Faker) -> str:
    pattern = rng.choice(lang.name_patterns)
    surname, surname2 = fake.last_name(), fake.last_name()
    acronym = "".join(rng.choice("ABDEGHKLMNPRSTVW") for _ in range(rng.choice((2, 3, 3, 4))))
    return pattern.format(surname=surname, surname2=surname2, business=rng.choice(lang.business),
                          form=rng.choice(country.legal_forms), acronym=acronym).strip()


def address(rng: random.Random, country: Country, fake: Faker) -> tuple[str, ...]:
    street = fake.street_name()
    number = str(rng.randint(1, 199))
    if country.code in ("DE", "AT", "NL", "PL", "CZ", "SE", "DK", "NO", "FI") and \
            rng.random() < P_LETTER_SUFFIX:
        number += rng.choice("abc")
    if country.code in ("PL", "CZ") and rng.random() < P_FLAT_NUMBER:
        number += f"/{rng.randint(1, 40)}"
    if country.code == "PL" and rng.random() < 0.7:
        street = "ul. " + street
    postcode, city = fake.postcode(), fake.city()
    style = country.address_style
    if style == "us":
        number = str(rng.randint(100, 19999))
        lines = [f"{number} {street}"]
        if rng.random() < 0.3:
            lines.append(f"Suite {rng.randint(100, 950)}")
        return (*lines, f"{city}, {fake.state_abbr()} {fake.postcode()}")
    if style == "gb":
        return (f"{number} {street}", city, postcode)
    if style == "no_street":
        return (f"{number} {street}", f"{postcode} {city}")
    if style == "street_comma_no":
        return (f"{street}, {number}", f"{postcode} {city}")
    return (f"{street} {number}", f"{postcode} {city}")


def domain(name: str, country: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    words = [w for w in re.split(r"[^a-z0-9]+", ascii_name.lower()) if w][:2]
    return f"{'-'.join(words) or 'firma'}.{TLD[country]}"


def party(rng: random.Random, lang: Language, country: Country, *, with_vat: bool,
          seller: bool, foreign_of: Language | None = None) -> Party:
    fake = faker_for(rng, country)
    name = company_name(rng, lang, country, fake)
    lines = address(rng, country, fake)
    if foreign_of is not None:   # a buyer abroad: the seller's language names its country
        lines = (*lines, Locale.parse(_locale_of(foreign_of)).territories[country.code])
    vat_compact = vat_printed = None
    if with_vat and country.has_vat:
        vat_compact = ids.vat_number(rng, country.code)
        vat_printed = ids.printed_vat(rng, country.code, vat_compact)
    site = domain(name, country.code)
    mailbox = rng.choice(SELLER_MAILBOXES if seller else BUYER_MAILBOXES)
    return Party(
        name=name, address=lines, country=country.code, vat_printed=vat_printed,
        vat_compact=ids.compact_id(vat_printed) if vat_printed else None,
        ids=ids.company_ids(rng, country.code, vat_compact),
        contact=fake.name(), phone=fake.phone_number(),
        email=f"{mailbox}@{site}",
        web=f"www.{site}",
    )


def _locale_of(lang: Language) -> str:
    return lang.countries[0].locale


def bank(rng: random.Random, country: Country, fake: Faker) -> Bank:
    name = rng.choice(BANKS[country.code]).format(city=fake.city())
    if not country.bban:
        routing, account = ids.us_bank_account(rng)
        return Bank(name=name, account=f"Routing (ABA): {routing}  Account: {account}")
    iban = ids.iban_number(rng, country.code, country.bban)
    account = _national_account(rng, country.code, iban)
    return Bank(name=name, iban=iban, iban_printed=ids.printed_iban(rng, iban),
                bic=ids.bic_code(rng, country.code, iban), account=account)


def _national_account(rng: random.Random, cc: str, iban: str) -> str | None:
    """The domestic form some countries print beside (or instead of) the IBAN."""
    bban = iban[4:]
    if cc == "GB" and rng.random() < 0.6:
        return f"Sort code {bban[4:6]}-{bban[6:8]}-{bban[8:10]}  Account {bban[10:]}"
    if cc == "SE" and rng.random() < 0.7:
        number = ids.luhn_reference(rng, 8)
        return f"Bankgiro {number[:4]}-{number[4:]}"
    if cc == "NO" and rng.random() < 0.7:
        return f"Kontonr. {bban[:4]}.{bban[4:6]}.{bban[6:]}"
    if cc == "DK" and rng.random() < 0.7:
        return f"Reg.nr. {bban[:4]}  Kontonr. {bban[4:]}"
    if cc == "CZ" and rng.random() < 0.7:
        prefix, account = int(bban[4:10]), int(bban[10:])
        return f"Číslo účtu {f'{prefix}-' if prefix else ''}{account}/{bban[:4]}"
    return None
