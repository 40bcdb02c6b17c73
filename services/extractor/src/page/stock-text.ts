/**
 * Texts that state availability, in the languages shops commonly use: the builtin engine's buy box reads them, and
 * they ground a model's yes/no. Test out-of-stock first, since "unavailable" holds "available".
 */
export const OUT_OF_STOCK =
  /out of stock|sold out|currently unavailable|no longer available|agotado|ausverkauft|nicht (mehr )?(verfügbar|lieferbar)|esaurito|non disponibile|épuisé|rupture de stock|indisponível|esgotado|нет в наличии|распродано|품절|缺貨|售完|已售完|在庫切れ|売り切れ|stokta yok|uitverkocht|slutsåld/i;
export const IN_STOCK =
  /^(in stock|available|auf lager|sofort lieferbar|lieferbar|en stock|disponible|disponibile|em estoque|в наличии|有現貨|现货|在庫あり|op voorraad|i lager|på lager)\b/i;
