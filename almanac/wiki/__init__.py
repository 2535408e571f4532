"""Wikipedia input: stream pages out of a pages-articles XML dump and split their wikitext into sections.

``dump`` reads the MediaWiki export format (plain ``.xml`` or bz2, single- or multistream) page by
page and reports every page it does not return as an article, so a stage can count it;
``sections`` turns one page's wikitext into titled plain-text sections.
"""
